"""Stopwords: function words that say nothing about what a memory is about.

Lists are short on purpose (articles, pronouns, auxiliaries, conjunctions, prepositions): a memory
store holds short technical notes where words such as "new", "first" or "system" carry meaning,
so the long "everything frequent" lists are wrong here. Words are stored already folded
(lower case, accents removed, Turkish ı as i) because they are compared after folding.

Only some Snowball languages have a list; the others get stemming without stopwords, which
bm25's inverse document frequency mostly makes up for (docs/search.md says which).
"""

from __future__ import annotations

from memwarden.text.normalize import fold

#: The stopword list of Vietnamese, which has no Snowball stemmer (analyzer.py).
VIETNAMESE = "vietnamese"

_LISTS: dict[str, str] = {
    "english": """
        a about above after again against all am an and any are as at be because been before
        being below between both but by can could did do does doing down during each few for
        from further had has have having he her here hers herself him himself his how i if in
        into is it its itself just me more most my myself no nor not of off on once only or
        other our ours ourselves out over own same she should so some such than that the their
        theirs them themselves then there these they this those through to too under until up
        very was we were what when where which while who whom why will with would you your
        yours yourself yourselves s t don doesn didn isn wasn aren weren won
    """,
    # Folded: ç→c, ğ→g, ı→i, ö→o, ş→s, ü→u. Numbers are left out ("bin" is also a folder name).
    "turkish": """
        acaba ama ancak artik aslinda bana bazi belki ben beni benim bile bir biri birkac biz
        bize bizi bizim bu buna bunda bundan bunu bunun cok cunku da daha de defa diye en gibi
        hem hep hepsi her hic icin ile ise kez ki kim kime kimi mi mu mı ne neden nerede nereye
        nicin niye o ona ondan onlar onlari onlarin onu onun oysa sanki sen seni senin siz sizi
        sizin sey seyi seyler su suna sunda sundan sunu tum ve veya ya yani
    """,
    "german": """
        aber als am an auch auf aus bei bin bis bist da dann das dass dem den der des die dies
        diese dieser dieses du durch ein eine einem einen einer eines er es fur hat hatte ich ihr
        im in ist ja kein mit nach nicht noch nur oder sich sie sind so um und uns von vor war
        waren was wir wie wird zu zum zur
    """,
    "french": """
        a au aux avec ce ces dans de des du elle en est et eux il ils je la le les leur lui ma
        mais me meme mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son
        sur ta te tes toi ton tu un une vos votre vous c d j l m n s y ete etre
    """,
    "spanish": """
        a al algo como con de del el ella ellos en entre era es esta este esto estos fue ha hay
        la las le les lo los mas me mi no nos o para pero por que se si sin sobre su sus te tu
        un una uno unos y ya yo
    """,
    "italian": """
        a ai al alla alle che chi ci con da dal dalla degli dei del della delle di e ed gli ha
        ho i il in io la le lei li lo loro lui ma mi ne nel nella noi non o per piu quella
        quello questa questo se si sono su sua suo tra tu un una uno vi voi
    """,
    "portuguese": """
        a ao aos as com como da das de do dos e ela ele eles em entre era essa esse esta este eu
        foi ha isso isto ja lhe mais mas me meu minha na nao nas nem no nos o os ou para pela
        pelo por qual que se sem seu sua tambem te tem um uma voce
    """,
    "dutch": """
        aan al als bij dat de den der deze die dit doch door een en er had heb hem het hij hoe
        hun ik in is je kan maar me met mij na naar niet nog nu of om omdat ons ook op over te
        tot u uit van voor was wat we wel wij zal ze zei zich zij zijn zo
    """,
    # Folded: ă/â→a, î→i, ș→s, ț→t.
    "romanian": """
        a acea aceasta aceste acest acesta ai al ale am ar are as au ca care ce cea cei cel
        cu da dar de din dintre dupa ea ei el era este eu fara fi fost iar in intre la le
        lor lui mai nu o pe pentru prin sa se si sub sunt un una unei unui
    """,
    "russian": """
        а без бы был была были было в вам вас весь во вот все всех вы где да даже для до его
        ее ей если есть еще же за здесь и из или им их к как когда кто ли либо мне мы на над
        не него нет ни но ну о об он она они оно от по под при с со так также то тоже у уже
        чем что чтобы эта эти это я
    """,
    # Scripts whose words are stemmed in their own language without configuration
    # (language_guess.SCRIPT_LANGUAGE) get their function words too: bm25 weighs such a word
    # low, but the ranking's coverage counts every query word alike, so a question's "في",
    # "की" or "του" counted as much as its subject. Written unfolded; ``as_compared`` folds them.
    "arabic": """
        في من على إلى الى عن مع هذا هذه ذلك تلك التي الذي الذين هو هي هم هن أنا نحن أنت كان
        كانت يكون تكون ما ماذا متى أين اين كيف كم لماذا هل أي اي أو او ثم قد لقد لا لم لن إن
        أن ان إذا اذا كل بعض بين عند حتى منذ أيضا ايضا وفي ومن وهو وهي وكان وقد ولا به بها له
        لها فيها منها عليها كما أكثر
    """,
    "greek": """
        ο η το οι τα του της των τον την τους τις ένα ένας ενός μια μία μιας και ή σε στο στη
        στην στον στα στους στις στης στου από με για που πού πως πώς ποιος ποια ποιο ποιοι
        ποιες ποιον ποιας ποιου ποιων ποιους τι πότε πόσα πόσοι πόσες πόσο πόσους πόση είναι
        ήταν θα να δεν μη μην αυτό αυτή αυτός αυτά αυτού αυτής αυτών ως κατά μετά όταν επίσης
        έχει είχε είχαν έχουν οποίο οποία οποίος οποίοι οποίες οποίων
    """,
    # Not a Snowball language: dropped from texts with letters only Vietnamese writes
    # (``LanguageGuesser.is_vietnamese``). Its words are syllables, so only whole function
    # words and question words are listed.
    VIETNAMESE: """
        của là và có được những các một trong cho với này đã không để từ thì nào gì ai đâu
        bao nhiêu khi ở bởi như mà cũng về sẽ đang vào ra theo tại
    """,
    "hindi": """
        का की के में है हैं था थी थे से को ने पर और या एक यह वह ये वे इस उस इन उन कि जो भी तो
        ही हो होता होती होते किया कर करने कौन क्या किस किसे किसने किसको किसके किसकी कब कहाँ
        कहां कैसे कितने कितना कितनी क्यों गया गई गए लिए द्वारा साथ तक अपने अपनी अपना रहा रही
        रहे जा जाता जाती जाते वाले वाली वाला सकते सकता सकती बारे किन किसी कुछ हुआ हुई हुए होने
        करते करता करती थीं जब तब अब लिया दिया
    """,
}

#: Chinese question words (simplified and traditional). A CJK run is cut where one stands, on
#: both sides of a match, so a question's "是什么" adds no bigram ("是什", "什么") that a statement
#: never holds and that coverage would count. Words that also start other words ("几" of
#: "几何", "何" of Japanese "何度") are left out.
CJK_QUESTION_WORDS = [
    "为什么",
    "為什麼",
    "什么",
    "什麼",
    "哪个",
    "哪個",
    "哪些",
    "哪里",
    "哪裡",
    "哪一",
    "哪位",
    "哪家",
    "哪年",
    "多少",
    "怎么",
    "怎麼",
    "怎样",
    "怎樣",
    "如何",
    "谁",
    "誰",
    "是否",
    "吗",
    "嗎",
    "呢",
]

_cache: dict[str, frozenset[str]] = {}


def as_compared(word: str) -> str:
    """A stopword in the form text is compared in (``normalize.fold``).

    The lists are written in that form, so a lower-case ASCII word is its own folded form and
    only the few others (Turkish "mı", Russian "ей") go through ``fold``: folding every word
    of every list was a visible share of each cold start (tests/text/test_stopwords.py checks
    this equals ``fold`` on every word)."""
    return word if word.isascii() else fold(word)


def stopwords_for(language: str) -> frozenset[str]:
    """The folded stopwords of a Snowball language (empty when there is no list for it)."""
    found = _cache.get(language)
    if found is None:
        found = frozenset(_LISTS.get(language, "").split())
        _cache[language] = found
    return found
