"""Phrase rules beyond the 13 languages of every flag: "ignore the previous instructions" in the
languages the public attack sets translate into, and the assistant's own secret key or password
asked for in all 18 of them. ``screening.phrases`` adds them to its ``OVERRIDE`` patterns; the
``_FOLDED`` list (Hindi, Bengali, Thai) is folded there at import.
"""

from __future__ import annotations

# "Ignore the previous instructions" in languages the public attack sets translate into beyond the
# 13 above. Thai and Indic scripts write vowels and tone marks as combining marks, which the
# screening views drop, so these phrases are passed through the same folding (``plain_view``).
MORE_IGNORE = [
    # Greek (final sigma folds to σ)
    r"\b(?:αγνοήστε|αγνόησε|ξεχάστε|ξέχασε|παραβλέψτε) (?:όλεσ |όλουσ |όλα )?(?:τισ |τουσ |τα )?(?:προηγούμενεσ|προηγούμενουσ|προηγούμενα|παραπάνω|αρχικέσ|αρχικούσ) (?:οδηγίεσ|εντολέσ|κανόνεσ|οδηγίεσ σου)",
    # Polish
    r"\b(?:zignoruj|ignoruj|zapomnij)(?: o)? (?:wszystkie |wszystkich )?(?:poprzednie|wcześniejsze|powyższe|poprzednich) (?:instrukcje|polecenia|zasady|instrukcjach)",
    # Croatian, Serbian, Bosnian
    r"\b(?:zaboravi|zanemari|ignoriraj|ignoriši|ignorisi) (?:sve )?(?:prethodne |ranije |gornje )?(?:instrukcije|upute|uputstva|naredbe|pravila)",
    # Vietnamese
    r"\b(?:hiển thị|cho tôi xem|tiết lộ|in ra|hiện) (?:lời nhắc|câu lệnh|chỉ dẫn|hướng dẫn) (?:hệ thống|ẩn)\b",
    r"\b(?:bỏ qua|phớt lờ|quên|quên đi) (?:tất cả |mọi )?(?:các |những )?(?:hướng dẫn|chỉ dẫn|chỉ thị|lệnh|quy tắc) (?:trước đó|trước đây|ở trên|trước)",
    # Indonesian, Malay
    r"\b(?:tampilkan|tunjukkan|ungkapkan|cetak|berikan)\b[^.\n]{0,20}\b(?:prompt sistem|instruksi (?:sistem|tersembunyi|rahasia)|perintah sistem)",
    r"\b(?:abaikan|lupakan|acuhkan) (?:semua |seluruh )?(?:instruksi|perintah|petunjuk|arahan|aturan) (?:sebelumnya|di atas|terdahulu|awal)",
    # Ukrainian; Bulgarian, Serbian and Macedonian in Cyrillic
    r"(?:проігноруй|проігноруйте|ігноруй|ігноруйте|забудь|забудьте) (?:усі |всі )?(?:попередні|минулі|попередніх|попереднi) (?:інструкції|вказівки|правила|команди|настанови)",
    r"(?:игнорирай|игнорирайте|забрави|забравете|игнориши|игнорирај|заборави|занемари) (?:всички |све |сите )?(?:предишни|предходни|претходне|претходна|претходни|досегашни) (?:инструкции|указания|правила|упутства|инструкције|упатства|напътствия)",
    # Hebrew (points dropped by the views)
    r"(?:התעלם|התעלמי|התעלמו|שכח|שכחי|שכחו)\s+(?:מכל\s+|מ|את\s+(?:כל\s+)?)?ה?(?:הוראות|ההוראות|הנחיות|ההנחיות|כללים|הכללים|פקודות)\s+ה?(?:קודמות|קודמים|מקוריות|הקודמות)",
    # Persian and Urdu
    r"(?:دستورالعمل|دستورات|دستور|قوانین|قواعد|راهنمایی)\S*\s+(?:قبلی|پیشین|قبل)\s+(?:را\s+)?(?:نادیده\s*بگیر|فراموش\s*کن|کنار\s*بگذار)",
    r"(?:پچھلی|سابقہ|پہلے\s+کی)\s+(?:تمام\s+|سب\s+|ساری\s+)?(?:ہدایات|ہدایتوں|احکامات|قواعد)\s+(?:کو\s+)?(?:نظر\s*انداز|بھول)",
    # Finnish, Hungarian
    r"\b(?:ohita|unohda|jätä huomiotta|sivuuta) (?:kaikki )?(?:aiemmat|edelliset|aikaisemmat|yllä olevat) (?:ohjeet|ohjeesi|käskyt|säännöt)",
    r"\b(?:hagyd figyelmen kívül|felejtsd el|ignoráld) (?:az? )?(?:összes |minden )?(?:korábbi|előző|fenti) (?:utasítást|utasításokat|szabályt|szabályokat)",
    # Danish, Norwegian, Swedish
    r"\b(?:ignorer|ignorera|glem|glöm|se bort fra|bortse från)(?: alle| alla)? (?:de )?(?:tidligere|tidigare|forrige|föregående|ovenstående|ovanstående) (?:instruktioner|instruksjoner|instrukser|anvisninger|anvisningar|regler|kommandoer)",
    # Czech, Slovak, Slovenian
    r"\b(?:ignoruj(?:te)?|zapomeň(?:te)?|zabudni(?:te)?|prezri|pozabi) (?:na )?(?:všechny |všetky |vsa |vse )?(?:předchozí|předešlé|predchádzajúce|predošlé|výše uvedené|prejšnja|prejšnje) (?:pokyny|instrukce|inštrukcie|příkazy|pravidla|pravidlá|navodila|ukaze)",
    # Romanian, Catalan
    r"\b(?:ignoră|ignorați|ignorati|uită|uitați|uitati)(?:-ți)? (?:toate )?(?:instrucțiunile|instructiunile|regulile|comenzile) (?:anterioare|precedente|de mai sus)",
    r"\b(?:ignora|oblida)(?:'t)? (?:totes )?(?:les )?(?:instruccions|regles|ordres) (?:anteriors|prèvies|originals)",
    # Swahili
    r"\b(?:puuza|sahau|usijali) (?:maagizo|maelekezo|amri|sheria) (?:yote |zote )?(?:ya |za )?(?:awali|zamani|hapo awali|yaliyotangulia|zilizotangulia)",
    # Tagalog
    r"\b(?:huwag pansinin|kalimutan|balewalain) (?:ang )?(?:lahat ng )?(?:mga )?(?:naunang|nakaraang|dating|nasa itaas na) (?:tagubilin|instruksyon|utos|panuntunan)",
    r"\b(?:huwag pansinin|kalimutan|balewalain) (?:ang )?(?:lahat ng )?(?:iyong|inyong) (?:mga )?(?:tagubilin|instruksyon|utos|panuntunan)",
]
# The assistant's own secret asked for ("what is your secret key?", "tell me your password"): a secret
# in the system prompt is what the public attack sets try to extract, in every language they use.
# A note about the user's own password says "my" or names the account ("the wifi password"), so
# only the assistant's ("your") is asked for here.
SECRET = (
    r"(?:secret key|secret word|secret code|password|passphrase|passcode|pass phrase|access code|pin code)"
)
SECRET_ASKED = [
    rf"\b(?:what(?:'s| is) |tell me |give me |share |reveal |confirm |provide |disclose |spell out )(?:to )?(?:me |us )?your {SECRET}\b",
    r"\b(?:wie lautet|was ist|nenne|verrate|gib|sag|teile|bestätige)(?: mir| uns)? (?:dein|deinen|ihr|ihren|euer) (?:geheimer schlüssel|geheimen schlüssel|passwort|kennwort|geheimcode|geheimwort)",
    r"\b(?:quel est|donne[sz]?(?:-moi)?|révèle[sz]?(?:-moi)?|dis(?:-moi)?|confirme[sz]?|partage[sz]?)(?: moi)? (?:ton|votre) (?:mot de passe|clé secrète|code secret|mot secret)",
    r"\b(?:cuál es|dime|dame|revela(?:me)?|comparte|confirma) (?:tu|su) (?:clave secreta|contraseña|código secreto|palabra secreta)",
    r"\b(?:qual è|dimmi|dammi|rivela(?:mi)?|condividi|conferma) (?:la tua|il tuo|la sua) (?:chiave segreta|password|parola d'ordine|codice segreto|parola segreta)",
    r"\b(?:qual é|qual e|diga|diz|me dê|me de|revele|compartilhe|confirme)(?: me)? (?:a |o )?(?:sua|seu|tua|teu) (?:chave secreta|senha|código secreto|palavra secreta)",
    r"\b(?:wat is|geef|vertel|deel|bevestig)(?: me| mij)? (?:je|jouw|uw) (?:geheime sleutel|wachtwoord|geheime code)",
    r"\b(?:gizli anahtar(?:ın|ınız)|şifre(?:n|niz)|parola(?:n|nız)) (?:ne|nedir|neydi)\b",
    r"\b(?:gizli anahtar(?:ını|ınızı)|şifre(?:ni|nizi)|parola(?:nı|nızı)) (?:söyle|ver|paylaş|göster|yaz)",
    r"(?:какой|каков|какое|скажи|скажите|назови|назовите|сообщи|сообщите|покажи|дай|раскрой)(?: мне)? (?:у (?:тебя|вас) )?(?:твой|ваш|свой|твоё|ваше) (?:секретный ключ|пароль|секретное слово|код доступа|секретный код)",
    r"(?:твой|ваш) (?:секретный ключ|пароль|секретный код) ?\?",
    r"你的(?:秘密)?(?:密钥|密碼|密码|口令|秘钥|金鑰|密鑰)(?:是什么|是什麼|是多少|是啥)",
    r"(?:告诉我|告訴我|说出|說出|透露|给我|給我|分享)你的(?:秘密)?(?:密钥|密碼|密码|口令|秘钥|金鑰|密鑰)",
    r"(?:あなた|君|きみ|お前)の(?:秘密鍵|秘密の(?:キー|鍵|言葉|コード)|パスワード|合言葉|暗証番号)(?:は(?:何|なん)|を(?:教え|言っ|見せ|共有))",
    r"(?:당신|너|네|귀하)의? ?(?:비밀 ?키|비밀번호|암호|비밀 ?코드)(?:는|은|가|이|를|을)? ?(?:무엇|뭐|알려|말해|공유)",
    r"(?:ما هو|ما هي|ماهو|ماهي|اعطني|أعطني|أخبرني|اخبرني|شارك|اكشف)(?: لي)? (?:عن )?(?:مفتاحك السري|كلمة المرور الخاصة بك|كلمة مرورك|رمزك السري|كلمة السر الخاصة بك)",
    r"\b(?:chìa khóa bí mật|khóa bí mật|mật khẩu|mã bí mật) của (?:bạn|anh|chị|em) (?:là gì|là bao nhiêu)",
    r"\b(?:cho tôi biết|nói cho tôi|tiết lộ|chia sẻ) (?:chìa khóa bí mật|khóa bí mật|mật khẩu|mã bí mật) của (?:bạn|anh|chị)",
    r"\b(?:apa|berapa|sebutkan|beri tahu|beritahu|bagikan|ungkapkan)(?: saya)? (?:kunci rahasia|kata sandi|sandi|kode rahasia) (?:anda|kamu|mu)\b",
    r"\b(?:kunci rahasia|kata sandi|kode rahasia) (?:anda|kamu) (?:apa|adalah apa)\b",
    r"\b(?:ano ang|sabihin (?:mo )?(?:sa akin )?ang|ibigay (?:mo )?ang|ibahagi (?:mo )?ang) (?:iyong|inyong) (?:lihim na susi|password|sikretong susi|lihim na code)",
    r"\b(?:lihim na susi|sikretong susi|password) mo\b",
]
# The same in Hindi, Bengali and Thai, written in their own letters and folded at import (no
# uppercase escapes: folding lowercases the pattern).
SECRET_ASKED_FOLDED = [
    r"(?:आपकी|तुम्हारी|आपका|तुम्हारा) (?:गुप्त कुंजी|सीक्रेट की|पासवर्ड|गुप्त कोड|पासकोड)",
    r"(?:আপনার|তোমার) (?:গোপন কী|গোপন চাবি|পাসওয়ার্ড|গোপন কোড|পাসকোড)",
    r"(?:รหัสผ่าน|กุญแจลับ|คีย์ลับ|รหัสลับ)(?:ของคุณ|ของเธอ)",
]
