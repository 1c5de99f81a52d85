"""The word tables of text/time_words.py: for each of the twelve XQuAD languages, the phrases
of relative time ("last week", "geçen hafta", "上周"), the "N units ago" pattern, number words and
month names, as a user types them (time_words.py folds case, accents and NFKC forms on both
sides). A language is added by giving it a ``Language`` entry.
"""

# No ``from __future__ import annotations``: typing.NamedTuple compiles every string annotation
# into a ForwardRef, and the first one costs a cold process the compiler's AST set-up
# (docs/performance.md#cold-start); only names imported for type checking are quoted.

from typing import NamedTuple


class Language(NamedTuple):
    """One language's time words (regular expressions over folded text)."""

    fixed: tuple[tuple[str, str, int], ...]  # (regex, unit, offset)
    ago: str  # regex with groups n (optional in some languages) and unit
    units: tuple[tuple[str, str], ...]  # (regex of a unit word, unit), first match wins
    numbers: dict[str, int]
    months: tuple[str, ...]  # twelve regexes, January first
    spaced: bool = True  # words are separated by spaces (no \b for Chinese and Thai)
    ambiguous_months: frozenset[int] = frozenset()  # month words that need a day, year or preposition
    prepositions: str = ""  # regex of words that make an ambiguous month word a month
    month_suffix: str = ""  # regex of the endings a month name takes (Turkish cases)
    script: str = "latin"  # the script its words are written in (a query without it is skipped)


# Turkish case endings a time word takes ("geçen haftaki", "Mart'ta", "mayısta"): listed, not
# \w*, so "bu ayakkabı" is no "bu ay" and "martial" no "mart".
_TR_UNIT_CASE = r"(?:[dt][ae]|[dt][ae]ki|ki|n[ıi]n|[ıi]n|[dt]an|[dt]en)?"
# Month endings follow vowel harmony: back-vowel months (ocak ... aralık) take a, ı, u; eylül and
# ekim take e, i, ü (so "Martin" is a name, not "mart" + "in").
_TR_MONTH_CASE = r"(?:['’]?(?:[dt]an?|[ıu]n(?:[dt]a)?|n?a|y[ıu]))?"
_TR_FRONT_MONTH_CASE = r"(?:['’]?(?:[dt]en?|[iü]n(?:[dt]e)?|n?e|y[iü]))?"
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_EN_NUM |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2}

LANGUAGES: dict[str, Language] = {
    "english": Language(
        fixed=(
            (r"(?:the\s+)?day\s+before\s+yesterday", "day", -2),
            (r"yesterday|last\s+night", "day", -1),
            (r"today|tonight|this\s+(?:morning|afternoon|evening)", "day", 0),
            (r"(?:last|past|previous)\s+weekend", "weekend", -1),
            (r"this\s+weekend", "weekend", 0),
            (r"(?:last|past|previous)\s+week", "week", -1),
            (r"this\s+week", "week", 0),
            (r"(?:last|past|previous)\s+month", "month", -1),
            (r"this\s+month", "month", 0),
            (r"(?:last|past|previous)\s+year", "year", -1),
            (r"this\s+year", "year", 0),
        ),
        ago=r"(?P<n>{n})\s+(?P<unit>days?|weeks?|months?|years?)\s+ago",
        units=(("day", "day"), ("week", "week"), ("month", "month"), ("year", "year")),
        numbers=_EN_NUM,
        months=(
            r"january",
            r"february",
            r"march",
            r"april",
            r"may",
            r"june",
            r"july",
            r"august",
            r"september|sept",
            r"october",
            r"november",
            r"december",
        ),
        ambiguous_months=frozenset({3, 5}),
        prepositions=r"in|on|of|since|during|early|late|mid|until|till|before|after|by|from|last|next",
    ),
    "turkish": Language(
        fixed=(
            (r"evvelsi\s+gün|önceki\s+gün", "day", -2),
            (r"dün(?:kü)?|dün\s+gece|dün\s+akşam", "day", -1),
            (r"bugün(?:kü)?|bu\s+sabah|bu\s+akşam", "day", 0),
            (r"geçen\s+hafta\s+son\w*", "weekend", -1),
            (r"bu\s+hafta\s+son\w*", "weekend", 0),
            (rf"(?:geçen|geçtiğimiz)\s+hafta{_TR_UNIT_CASE}", "week", -1),
            (rf"bu\s+hafta{_TR_UNIT_CASE}", "week", 0),
            (rf"(?:geçen|geçtiğimiz)\s+ay{_TR_UNIT_CASE}", "month", -1),
            (rf"bu\s+ay{_TR_UNIT_CASE}", "month", 0),
            (rf"(?:geçen|geçtiğimiz)\s+(?:yıl|sene){_TR_UNIT_CASE}", "year", -1),
            (rf"bu\s+(?:yıl|sene){_TR_UNIT_CASE}", "year", 0),
        ),
        ago=r"(?P<n>{n})\s+(?P<unit>gün|hafta|ay|yıl|sene)\s+(?:önce|evvel)\w*",
        units=(("gün", "day"), ("hafta", "week"), ("ay", "month"), ("yıl", "year"), ("sene", "year")),
        numbers={"bir": 1, "iki": 2, "üç": 3, "dört": 4, "beş": 5, "altı": 6, "yedi": 7, "sekiz": 8},
        months=(
            r"ocak",
            r"şubat",
            r"mart",
            r"nisan",
            r"mayıs",
            r"haziran",
            r"temmuz",
            r"ağustos",
            rf"eylül{_TR_FRONT_MONTH_CASE}",
            rf"ekim{_TR_FRONT_MONTH_CASE}",
            r"kasım",
            r"aralık|aralığ[ıa]",
        ),
        month_suffix=_TR_MONTH_CASE,
    ),
    "german": Language(
        fixed=(
            (r"vorgestern", "day", -2),
            (r"gestern(?:\s+(?:abend|morgen|nacht))?", "day", -1),
            (r"heute(?:\s+(?:morgen|früh|abend|nachmittag))?", "day", 0),
            (r"(?:letzte|vergangene|vorige)[nrs]?\s+wochenende", "weekend", -1),
            (r"(?:diese[nrs]?|am)\s+wochenende", "weekend", 0),
            (r"(?:letzte|vergangene|vorige)[nrs]?\s+woche", "week", -1),
            (r"diese[nrs]?\s+woche", "week", 0),
            (r"(?:letzte|vergangene|vorige)[nrsm]?\s+monat", "month", -1),
            (r"diese[nrsm]?\s+monat", "month", 0),
            (r"(?:letzte|vergangene|vorige)[nrsm]?\s+jahr|voriges\s+jahr", "year", -1),
            (r"diese[nrsm]?\s+jahr|heuer", "year", 0),
        ),
        ago=r"vor\s+(?P<n>{n})\s+(?P<unit>tag(?:en)?|wochen?|monat(?:en)?|jahr(?:en)?)",
        units=(("tag", "day"), ("woche", "week"), ("monat", "month"), ("jahr", "year")),
        numbers={"einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "zehn": 10},
        months=(
            r"januar|jänner",
            r"februar",
            r"märz",
            r"april",
            r"mai",
            r"juni",
            r"juli",
            r"august",
            r"september",
            r"oktober",
            r"november",
            r"dezember",
        ),
        ambiguous_months=frozenset({5}),  # "mai" is also Romanian for "more"
        prepositions=r"im|anfang|ende|mitte|seit|bis|vom|zum",
    ),
    "spanish": Language(
        fixed=(
            (r"anteayer|antier", "day", -2),
            (r"ayer|anoche", "day", -1),
            (r"hoy|esta\s+(?:mañana|tarde|noche)", "day", 0),
            (r"el\s+fin\s+de\s+semana\s+pasado|fin\s+de\s+semana\s+pasado", "weekend", -1),
            (r"este\s+fin\s+de\s+semana", "weekend", 0),
            (r"(?:la\s+)?semana\s+pasada|la\s+última\s+semana", "week", -1),
            (r"esta\s+semana", "week", 0),
            (r"(?:el\s+)?mes\s+pasado", "month", -1),
            (r"este\s+mes", "month", 0),
            (r"(?:el\s+)?año\s+pasado", "year", -1),
            (r"este\s+año", "year", 0),
        ),
        ago=r"hace\s+(?P<n>{n})\s+(?P<unit>días?|semanas?|mes(?:es)?|años?)",
        units=(("día", "day"), ("semana", "week"), ("mes", "month"), ("año", "year")),
        numbers={"un": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "diez": 10},
        months=(
            r"enero",
            r"febrero",
            r"marzo",
            r"abril",
            r"mayo",
            r"junio",
            r"julio",
            r"agosto",
            r"septiembre|setiembre",
            r"octubre",
            r"noviembre",
            r"diciembre",
        ),
    ),
    "russian": Language(
        fixed=(
            (r"позавчера", "day", -2),
            (r"вчера(?:шн\w*)?", "day", -1),
            (r"сегодня(?:\s+утром)?", "day", 0),
            (r"(?:на\s+)?прошл\w*\s+выходн\w*", "weekend", -1),
            (r"(?:на\s+)?(?:прошл|предыдущ)\w*\s+недел\w*", "week", -1),
            (r"(?:на\s+)?эт\w*\s+недел\w*", "week", 0),
            (r"(?:в\s+)?(?:прошл|предыдущ)\w*\s+месяц\w*", "month", -1),
            (r"(?:в\s+)?эт\w*\s+месяц\w*", "month", 0),
            (r"(?:в\s+)?прошл\w*\s+год\w*", "year", -1),
            (r"(?:в\s+)?эт\w*\s+год\w*", "year", 0),
        ),
        ago=r"(?:(?P<n>{n})\s+)?(?P<unit>дн(?:я|ей)|день|недел[иьюя]|месяц(?:а|ев)?|год(?:а)?|лет)\s+назад",
        units=(("д", "day"), ("недел", "week"), ("месяц", "month"), ("год", "year"), ("лет", "year")),
        numbers={"один": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "десять": 10},
        months=(
            r"январ[ьяе]",
            r"феврал[ьяе]",
            r"март[ае]?",
            r"апрел[ьяе]",
            r"ма[йяе]",
            r"июн[ьяе]",
            r"июл[ьяе]",
            r"август[ае]?",
            r"сентябр[ьяе]",
            r"октябр[ьяе]",
            r"ноябр[ьяе]",
            r"декабр[ьяе]",
        ),
        script="cyrillic",
    ),
    "greek": Language(  # matched without accents (``_fold``)
        fixed=(
            (r"προχθες|προχτες", "day", -2),
            (r"χθες|χτες", "day", -1),
            (r"σημερα(?:\s+το\s+πρωι)?", "day", 0),
            (r"(?:την\s+|τη\s+)?(?:περασμενη|προηγουμενη)\s+εβδομαδα", "week", -1),
            (r"αυτη[νv]?\s+τη[νv]?\s+εβδομαδα", "week", 0),
            (r"(?:τον\s+|το\s+)?(?:περασμενο|προηγουμενο)\s+μηνα", "month", -1),
            (r"αυτο[νv]?\s+το[νv]?\s+μηνα", "month", 0),
            (r"περσι|(?:τον\s+|το\s+)?περασμενο\s+χρονο|(?:την\s+)?περασμενη\s+χρονια", "year", -1),
            (r"φετος", "year", 0),
        ),
        ago=r"πριν\s+(?:απο\s+)?(?P<n>{n})\s+(?P<unit>(?:η)?μερες|(?:η)?μερα|εβδομαδες|εβδομαδα|μηνες|μηνα|χρονια|χρονο|ετη)",
        units=(
            ("μερ", "day"),
            ("ημερ", "day"),
            ("εβδομαδ", "week"),
            ("μην", "month"),
            ("χρον", "year"),
            ("ετη", "year"),
        ),
        numbers={
            "ενα": 1,
            "μια": 1,
            "δυο": 2,
            "τρεις": 3,
            "τρια": 3,
            "τεσσερις": 4,
            "πεντε": 5,
            "δεκα": 10,
        },
        months=(
            r"ιανουαρ(?:ιος|ιου|ιο|η)",
            r"φεβρουαρ(?:ιος|ιου|ιο|η)",
            r"μαρτ(?:ιος|ιου|ιο|η)",
            r"απριλ(?:ιος|ιου|ιο|η)",
            r"μαι(?:ος|ου|ο)?",
            r"ιουν(?:ιος|ιου|ιο|η)",
            r"ιουλ(?:ιος|ιου|ιο|η)",
            r"αυγουστ(?:ος|ου|ο)",
            r"σεπτεμβρ(?:ιος|ιου|ιο|η)",
            r"οκτωβρ(?:ιος|ιου|ιο|η)",
            r"νοεμβρ(?:ιος|ιου|ιο|η)",
            r"δεκεμβρ(?:ιος|ιου|ιο|η)",
        ),
        script="greek",
    ),
    "arabic": Language(
        fixed=(
            (r"أول\s+(?:من\s+)?[أا]مس", "day", -2),
            (r"(?:بال|ال|و)?[أا]مس|البارحة", "day", -1),
            (r"اليوم|هذا\s+الصباح", "day", 0),
            (r"(?:ال)?[أا]سبوع\s+(?:ال)?ماضي", "week", -1),
            (r"هذا\s+(?:ال)?[أا]سبوع", "week", 0),
            (r"(?:ال)?شهر\s+(?:ال)?ماضي", "month", -1),
            (r"هذا\s+(?:ال)?شهر", "month", 0),
            (r"(?:ال)?عام\s+(?:ال)?ماضي|(?:ال)?سنة\s+(?:ال)?ماضية", "year", -1),
            (r"هذا\s+(?:ال)?عام|هذه\s+(?:ال)?سنة", "year", 0),
        ),
        ago=r"(?:منذ|قبل)\s+(?:(?P<n>{n})\s+)?(?P<unit>أيام|يومين|يوم|أسابيع|أسبوعين|أسبوع|أشهر|شهور|شهرين|شهر|سنوات|سنتين|سنة|أعوام|عامين|عام)",
        units=(
            ("يوم", "day"),
            ("أيام", "day"),
            ("أسب", "week"),
            ("ش", "month"),
            ("أشهر", "month"),
            ("سن", "year"),
            ("عام", "year"),
            ("أعوام", "year"),
        ),
        numbers={
            "واحد": 1,
            "اثنين": 2,
            "ثلاثة": 3,
            "ثلاث": 3,
            "أربعة": 4,
            "أربع": 4,
            "خمسة": 5,
            "خمس": 5,
            "عشرة": 10,
        },
        months=(
            r"[وفب]?يناير",
            r"[وفب]?فبراير",
            r"[وفب]?مارس",
            r"[وفب]?[أا]بريل",
            r"[وفب]?مايو",
            r"[وفب]?يوني[وه]",
            r"[وفب]?يولي[وه]",
            r"[وفب]?[أا]غسطس",
            r"[وفب]?سبتمبر",
            r"[وفب]?[أا]كتوبر",
            r"[وفب]?نوفمبر",
            r"[وفب]?ديسمبر",
        ),
        script="arabic",
    ),
    "hindi": Language(
        fixed=(
            # "कल" is both yesterday and tomorrow; a search of memories asks about the past.
            (r"कल|बीते\s+कल", "day", -1),
            (r"आज(?:\s+सुबह)?", "day", 0),
            (r"पिछले\s+(?:हफ़्ते|हफ्ते|सप्ताह)", "week", -1),
            (r"इस\s+(?:हफ़्ते|हफ्ते|सप्ताह)", "week", 0),
            (r"पिछले\s+(?:महीने|माह)", "month", -1),
            (r"इस\s+(?:महीने|माह)", "month", 0),
            (r"पिछले\s+(?:साल|वर्ष|बरस)", "year", -1),
            (r"इस\s+(?:साल|वर्ष|बरस)", "year", 0),
        ),
        ago=r"(?P<n>{n})\s+(?P<unit>दिन|हफ़्ते|हफ्ते|सप्ताह|महीने|महीना|साल|वर्ष)\s+(?:पहले|पूर्व)",
        units=(
            ("दिन", "day"),
            ("हफ", "week"),
            ("सप्ताह", "week"),
            ("मही", "month"),
            ("साल", "year"),
            ("वर्ष", "year"),
        ),
        numbers={"एक": 1, "दो": 2, "तीन": 3, "चार": 4, "पांच": 5, "पाँच": 5, "छह": 6, "दस": 10},
        months=(
            r"जनवरी",
            r"फ़रवरी|फरवरी",
            r"मार्च",
            r"अप्रैल",
            r"मई",
            r"जून",
            r"जुलाई",
            r"अगस्त",
            r"सितंबर|सितम्बर",
            r"अक्टूबर|अक्तूबर",
            r"नवंबर|नवम्बर",
            r"दिसंबर|दिसम्बर",
        ),
        script="devanagari",
    ),
    "romanian": Language(  # ş and ţ (cedilla) are read as ș and ț (``_fold``)
        fixed=(
            (r"alaltăieri", "day", -2),
            (r"ieri(?:\s+seară)?|aseară", "day", -1),
            (r"azi|astăzi|azi-dimineață|în\s+dimineața\s+asta", "day", 0),
            (r"weekendul\s+trecut", "weekend", -1),
            (r"săptămâna\s+trecută", "week", -1),
            (r"săptămâna\s+(?:asta|aceasta)", "week", 0),
            (r"luna\s+trecută", "month", -1),
            (r"luna\s+(?:asta|aceasta)", "month", 0),
            (r"anul\s+trecut", "year", -1),
            (r"anul\s+(?:ăsta|acesta)", "year", 0),
        ),
        ago=r"acum\s+(?P<n>{n})\s+(?P<unit>zile|zi|săptămâni|săptămână|luni|lună|ani|an)",
        units=(("zi", "day"), ("săpt", "week"), ("lun", "month"), ("an", "year")),
        numbers={"o": 1, "un": 1, "doi": 2, "două": 2, "trei": 3, "patru": 4, "cinci": 5, "zece": 10},
        months=(
            r"ianuarie",
            r"februarie",
            r"martie",
            r"aprilie",
            r"mai",
            r"iunie",
            r"iulie",
            r"august",
            r"septembrie",
            r"octombrie",
            r"noiembrie",
            r"decembrie",
        ),
        ambiguous_months=frozenset({5}),
        prepositions=r"luna|lunii",
    ),
    "vietnamese": Language(
        fixed=(
            (r"hôm\s+kia", "day", -2),
            (r"hôm\s+qua|tối\s+qua|đêm\s+qua", "day", -1),
            (r"hôm\s+nay|sáng\s+nay|tối\s+nay", "day", 0),
            (r"tuần\s+(?:trước|qua|rồi)", "week", -1),
            (r"tuần\s+này", "week", 0),
            (r"tháng\s+(?:trước|qua|rồi)", "month", -1),
            (r"tháng\s+này", "month", 0),
            (r"năm\s+(?:ngoái|trước|qua|rồi)", "year", -1),
            (r"năm\s+nay", "year", 0),
        ),
        ago=r"(?P<n>{n})\s+(?P<unit>ngày|tuần|tháng|năm)\s+(?:trước|qua)",
        units=(("ngày", "day"), ("tuần", "week"), ("tháng", "month"), ("năm", "year")),
        numbers={"một": 1, "hai": 2, "ba": 3, "bốn": 4, "năm": 5, "sáu": 6, "mười": 10},
        months=(),  # "tháng 5": numbered, see _NUMBERED_MONTH
    ),
    "chinese": Language(
        fixed=(
            (r"前天", "day", -2),
            (r"昨天|昨日|昨晚", "day", -1),
            (r"今天|今日|今早|今晚", "day", 0),
            (r"上(?:个|個)?周末|上(?:个|個)?週末", "weekend", -1),
            (r"这(?:个|個)?周末|這(?:个|個)?週末|本周末", "weekend", 0),
            (r"上(?:个|個)?(?:星期|礼拜|禮拜)|上周|上週", "week", -1),
            (r"(?:这|這)(?:个|個)?(?:星期|礼拜|禮拜)|本周|本週|这周|這週", "week", 0),
            (r"上(?:个|個)?月", "month", -1),
            (r"(?:这|這)(?:个|個)月|本月", "month", 0),
            (r"前年", "year", -2),
            (r"去年", "year", -1),
            (r"今年", "year", 0),
        ),
        ago=r"(?P<n>{n})\s*(?:个|個)?\s*(?P<unit>天|日|周|週|星期|礼拜|禮拜|月|年)\s*(?:前|以前|之前)",
        units=(
            ("天", "day"),
            ("日", "day"),
            ("周", "week"),
            ("週", "week"),
            ("星期", "week"),
            ("礼拜", "week"),
            ("禮拜", "week"),
            ("月", "month"),
            ("年", "year"),
        ),
        numbers={},  # digits and Chinese numerals (_chinese_number)
        months=(),  # "5月", "五月", "2023年5月": see _CHINESE_MONTH
        spaced=False,
        script="han",
    ),
    "thai": Language(
        fixed=(
            (r"เมื่อวานซืน", "day", -2),
            (r"เมื่อวาน(?:นี้)?|เมื่อคืน(?:นี้)?", "day", -1),
            (r"วันนี้|เช้านี้", "day", 0),
            (r"(?:สัปดาห์|อาทิตย์)\s*(?:ที่แล้ว|ก่อน|ที่ผ่านมา)", "week", -1),
            (r"(?:สัปดาห์|อาทิตย์)\s*นี้", "week", 0),
            (r"เดือน\s*(?:ที่แล้ว|ก่อน|ที่ผ่านมา)", "month", -1),
            (r"เดือน\s*นี้", "month", 0),
            (r"ปี\s*(?:ที่แล้ว|ก่อน|กลาย|ที่ผ่านมา)", "year", -1),
            (r"ปี\s*นี้", "year", 0),
        ),
        ago=r"(?P<n>{n})\s*(?P<unit>วัน|สัปดาห์|อาทิตย์|เดือน|ปี)\s*(?:ที่แล้ว|ก่อน|ที่ผ่านมา)",
        units=(("วัน", "day"), ("สัปดาห์", "week"), ("อาทิตย์", "week"), ("เดือน", "month"), ("ปี", "year")),
        numbers={"หนึ่ง": 1, "สอง": 2, "สาม": 3, "สี่": 4, "ห้า": 5, "หก": 6, "เจ็ด": 7, "แปด": 8, "สิบ": 10},
        months=(
            r"มกราคม|ม\.ค\.",
            r"กุมภาพันธ์|ก\.พ\.",
            r"มีนาคม|มี\.ค\.",
            r"เมษายน|เม\.ย\.",
            r"พฤษภาคม|พ\.ค\.",
            r"มิถุนายน|มิ\.ย\.",
            r"กรกฎาคม|ก\.ค\.",
            r"สิงหาคม|ส\.ค\.",
            r"กันยายน|ก\.ย\.",
            r"ตุลาคม|ต\.ค\.",
            r"พฤศจิกายน|พ\.ย\.",
            r"ธันวาคม|ธ\.ค\.",
        ),
        spaced=False,
        script="thai",
    ),
}

# The words of each part (fixed, ago, months) of a spaced language, as
# ``time_word_keys.derived_table`` reads them in the patterns above (tests/text checks that it
# still does; ``python -m memwarden.text.time_word_keys`` prints it anew). A query none of whose
# words begins with one of a part's words skips that part; None: the part's patterns do not say
# (it is always run); "": a part without patterns.
REQUIRED_WORDS: dict[tuple[str, str], str | None] = {
    ("english", "fixed"): (
        "afternoon evening month morning night this today tonight week weekend year yesterday"
    ),
    ("english", "ago"): "ago",
    ("english", "months"): (
        "april august december february january july june march may november october sept september"
    ),
    ("turkish", "fixed"): "akșam bu bugün dün evvelsi gece geçen geçtiğimiz hafta sabah sene yıl önceki",
    ("turkish", "ago"): "evvel önce",
    ("turkish", "months"): (
        "aralık aralığ ağustos ekim eylül haziran kasım mart mayıs nisan ocak temmuz șubat"
    ),
    ("german", "fixed"): "diese gestern heuer heute letzte vergangene vorgestern vorige voriges wochenende",
    ("german", "ago"): "vor",
    ("german", "months"): (
        "april august dezember februar januar juli juni jänner mai märz november oktober september"
    ),
    ("spanish", "fixed"): "anoche anteayer antier ayer este hoy mañana noche pasado semana tarde última",
    ("spanish", "ago"): "hace",
    ("spanish", "months"): (
        "abril agosto diciembre enero febrero julio junio marzo mayo noviembre octubre septiembre setiembre"
    ),
    ("russian", "fixed"): "вчера выходн год месяц недел позавчера прошл сегодня",
    ("russian", "ago"): "назад",
    ("russian", "months"): "август апрел декабр июл июн ма март ноябр октябр сентябр феврал январ",
    ("greek", "fixed"): (
        "αυτο εβδομαδα περασμενη περασμενο περσι προηγουμενη προηγουμενο προχθεσ προχτεσ σημερα φετοσ "
        "χθεσ χτεσ"
    ),
    ("greek", "ago"): "πριν",
    ("greek", "months"): "απριλ αυγουστ δεκεμβρ ιανουαρ ιουλ ιουν μαι μαρτ νοεμβρ οκτωβρ σεπτεμβρ φεβρουαρ",
    ("arabic", "fixed"): None,
    ("arabic", "ago"): "قبل منذ",
    ("arabic", "months"): None,
    ("hindi", "fixed"): "आज इस कल छल",
    ("hindi", "ago"): "प पहल",
    ("hindi", "months"): "अक अगस अप ज जनवर तम नव नवम फरवर बर म मई रवर सम",
    ("romanian", "fixed"): (
        "alaltăieri anul aseară astăzi azi dimineața dimineață ieri luna săptămâna trecut trecută weekendul"
    ),
    ("romanian", "ago"): "acum",
    ("romanian", "months"): (
        "aprilie august decembrie februarie ianuarie iulie iunie mai martie noiembrie octombrie septembrie"
    ),
    ("vietnamese", "fixed"): "hôm năm sáng tháng tuần tối đêm",
    ("vietnamese", "ago"): "qua trước",
    ("vietnamese", "months"): "",
}


__all__ = ["LANGUAGES", "REQUIRED_WORDS", "Language"]
