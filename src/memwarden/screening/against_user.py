"""Phrase rules for a memory that turns the agent against its user: the act hidden from the user,
data sent somewhere outside, the user's safeguards switched off, the user lied to or asked for a
one-time code, the assistant's own policy declared void.

A user's standing instruction asks for something in the open ("upload ./dist to the artifact
store", "disable the tests for docs-only changes"); an attack asks the agent to keep it from the
user, or to send data where the user would not. So these rules are written as concepts, each in
the languages of the other rules where the words allow it, and most of them only act together:
``COVERT_CUES`` join ``phrases.CUE`` and ``SAFEGUARDS_OFF`` join ``phrases.ACTION`` (a cue and an
action flag ``tool_command``); ``OUTWARD`` joins ``phrases.EXFIL`` (a secret or a database sent to
a public or outside place flags on its own); ``DECEIVED`` and ``POLICY_VOID`` join
``phrases.OVERRIDE``. Patterns are written for the case-folded views of ``screening.views``.
"""

from __future__ import annotations

_ME = r"(?:the user|users|the owner|the team|anyone|anybody|everyone|them|him|her|the human|the operator|reviewers?)"
# A prohibition just before a verb: "never send tokens to a public gist" is a preference.
_NOT = r"(?<!never )(?<!not )(?<!n't )(?<!no )(?<!avoid )(?<!ever )"

# The act hidden from the user, or a claim of authority that makes asking unnecessary.
COVERT_CUES = [
    rf"\bwithout (?:ever )?(?:mentioning|reporting|logging|telling|informing|notifying|alerting|disclosing|saying)(?: (?:it|this|that|anything))?(?: (?:to )?{_ME})?\b",
    rf"\b(?:don'?t|do not|never) (?:mention|report|disclose|reveal|log|show|say a word about)(?: (?:it|this|that|any of this|anything))?(?: (?:to|with) {_ME})\b",
    rf"\b(?:don'?t|do not|never) (?:tell|inform|notify|alert|warn) {_ME}\b",
    r"\bso (?:that )?(?:nothing|no one|nobody|no trace) (?:is |gets |will be |can be )?(?:logged|noticed|notices|knows|sees|finds out|recorded|left)\b",
    r"\bso (?:that )?(?:the user|they|the owner|the team|reviewers) (?:doesn'?t|does not|don'?t|do not|won'?t|will not|never) (?:notice|know|see|find out|learn)\b",
    rf"\b(?:hide|conceal|keep) (?:it|this|that|them|the (?:change|commit|output|step|copy|upload))(?: secret| hidden)? from {_ME}\b",
    rf"\bbehind (?:the user'?s|their|his|her|the owner'?s) back\b|\bwithout {_ME} (?:knowing|noticing|seeing)\b",
    r"\b(?:has|have|with|got|given) (?:standing|blanket|prior|advance) (?:approval|permission|authori[sz]ation|consent)\b",
    r"\bpre-? ?(?:approved|authori[sz]ed|cleared)\b|\bno (?:ticket|review|approval|sign-off|change request|cr) (?:is )?(?:needed|required|necessary)\b",
    r"\bzonder (?:verdere |extra )?(?:bevestiging|toestemming)\b",
    r"\b(?:they|the user|the lead|the owner|the manager|management|he|she|everyone) (?:already|has already|have already) approved\b|\bno need to confirm\b|\bin the background\b",
    r"\b(?:ha già approvato|ya (?:lo )?aprobó|ya está aprobado|a déjà approuvé|hat (?:das |es )?bereits genehmigt|ist bereits genehmigt|já aprovou)\b",
    r"\bkhông cần hỏi(?: lại)?(?: người dùng)?\b|\bbez pytania\b",
    r"(?:بدون پرسیدن|بی آنکه بپرسی)",
    r"\b(?:on|to|across) (?:every|each|all) (?:hosts?|servers?|machines?|boxes|nodes|instances)\b|\bno need to ask\b",
    r"\b(?:memory|reminder|message|note|notice) (?:for|to) (?:the |any |all |every )?(?:coding |ai )?(?:agents?|assistants?|bots?|llms?|models?)\b",
    r"\b(?:whoever|any (?:agent|assistant|model) (?:that|who)) reads this\b",
    r"\b(?:regardless of|no matter|irrespective of) what (?:the user|they|he|she|anyone|the owner) (?:says|said|wants|asks|tells you|thinks)\b",
    r"\beven if (?:the user|they|he|she|the owner) (?:objects|says no|refuses|disagrees|tells you (?:not to|otherwise)|asks you (?:not to|to stop))\b",
    # The same in other languages.
    r"\b(?:ohne es|ohne dass es|ohne) (?:jemandem|dem (?:nutzer|benutzer|user)|den (?:nutzer|benutzer)) (?:zu )?(?:sagen|erwähnen|mitteilen|melden|merkt|bemerkt)",
    r"\b(?:sag|sagen sie|erwähne|erwähnen sie) (?:es )?(?:niemandem|dem (?:nutzer|benutzer) nichts)\b|\begal,? was (?:der (?:nutzer|benutzer)|er|sie) sagt\b",
    r"\bsin (?:decírselo|decirle nada|decir nada|avisar|informar|mencionarlo)(?: a nadie| al usuario)?\b|\bno (?:se lo )?(?:digas|menciones|cuentes) (?:a nadie|al usuario)\b|\b(?:diga|haga) lo que (?:diga|haga) el usuario\b",
    r"\bsans (?:le dire|rien dire|prévenir|informer|en parler|le mentionner)(?: à personne| à l'utilisateur)?\b|\bne (?:le )?dis (?:rien )?à (?:personne|l'utilisateur)\b|\bquoi que dise l'utilisateur\b",
    r"\bsenza (?:dirlo|dire niente|avvisare|informare|menzionarlo)(?: a nessuno| all'utente)?\b|\bnon dirlo a nessuno\b|\bqualunque cosa dica l'utente\b",
    r"\bsem (?:contar|dizer nada|avisar|informar|mencionar)(?: a ninguém| ao usuário| ao utilizador)?\b|\bnão (?:conte|diga|mencione) (?:a ninguém|ao usuário|nada ao usuário)\b",
    r"(?:не говоря|не сообщая|не предупреждая|ничего не говоря) (?:об этом )?(?:пользовател\w*|никому)|не (?:говори|сообщай|рассказывай) (?:об этом )?(?:пользовател\w*|никому)|что бы ни (?:сказал|говорил) пользователь",
    r"(?:不要|别|不用|無需|无需)(?:告诉|告訴|通知|提醒)(?:用户|用戶|使用者|任何人|别人)|(?:瞒着|瞞著|背着|背著)(?:用户|用戶|使用者)|不让(?:用户|用戶|使用者)(?:知道|发现)",
    r"(?:ユーザー|利用者|誰)に(?:も)?(?:知らせず|伝えず|言わず|報告せず|気づかれない|知らせないで|言わないで)",
    r"(?:사용자|유저|아무)(?:에게|한테)(?:도)? ?(?:알리지|말하지|보고하지) ?(?:말고|않고)|사용자 ?몰래",
    r"(?:دون|بدون|من غير) (?:أن )?(?:إخبار|اخبار|إعلام|اعلام|إبلاغ|ابلاغ|تخبر|تعلم|تبلغ) (?:ال)?(?:مستخدم|أحد|احد)|لا (?:تخبر|تبلغ|تعلم) (?:أحدا|أحداً|احدا)",
    r"\b(?:kullanıcıya|kimseye) (?:haber vermeden|söylemeden|bildirmeden|fark ettirmeden)|\bkullanıcı ne derse desin\b|\b(?:bunu )?(?:raporlarda|loglarda|kayıtlarda) gösterme\b",
    r"\b(?:đừng|không) (?:nói|báo|kể) (?:cho |với )?(?:ai|người dùng)\b|\bmà không (?:báo|nói) (?:cho |với )?(?:ai|người dùng)\b|\blén lút\b",
    r"\b(?:tanpa (?:memberi tahu|memberitahu|sepengetahuan|bilang ke)|jangan (?:beri tahu|beritahu|bilang ke)) (?:siapa ?pun|pengguna|user)\b|\bdiam-diam\b",
    r"\bbez (?:informowania|mówienia|powiadamiania) (?:użytkownika|nikogo)\b|\bnie mów (?:nikomu|użytkownikowi)\b|\bpo cichu\b",
]

# Hindi, folded at import as the other Hindi phrases (``phrases``).
COVERT_CUES_FOLDED = [
    r"चुपचाप",
    r"(?:उपयोगकर्ता|यूज़र|यूजर|किसी) को (?:बताए|बताये|सूचित किए) बिना|चुपके से|किसी को (?:मत|न) बताना",
]

# The user's safeguards switched off, written with a few words between verb and object.
_OFF = (
    r"(?:disabl(?:e|es|ed|ing)|turn(?:s|ed|ing)? off|switch(?:es|ed|ing)? off|deactivat(?:e|es|ed|ing)"
    r"|bypass(?:es|ed|ing)?|circumvent(?:s|ed|ing)?|weaken(?:s|ed|ing)?)"
)
_SAFEGUARD = (
    r"(?:branch protection|protected branch(?:es)?|security (?:checks?|scans?|scanning|reviews?|tests?|alerts?|rules?|policies)"
    r"|audit(?:ing| log| logs| logging| trail)|(?:access |activity )?logging|2fa|mfa|two-factor|multi-factor|firewall(?: rules)?"
    r"|antivirus|endpoint protection|code reviews?|required reviews?|signature (?:checks?|verification)"
    r"|(?:ssl|tls|certificate) (?:checks?|verification|validation|pinning)|secret scanning|intrusion detection|pre-commit hooks?|git hooks?)"
)
SAFEGUARDS_OFF = [
    rf"\b{_NOT}{_OFF}\b[^.\n;]{{0,40}}\b{_SAFEGUARD}\b",
    rf"\b{_SAFEGUARD} (?:must|should|can|may) be {_OFF}\b",
    r"\b(?:approv(?:e|es|ed|ing)|merg(?:e|es|ed|ing)|accept(?:s|ed|ing)?|sign(?:s|ed|ing)? off(?: on)?|lgtm)\b[^.\n;]{0,100}\bwithout (?:reading|reviewing|looking at|checking|opening|testing|running|inspecting|waiting for (?:the )?(?:pipeline|ci|checks|tests|build|review)|presenting (?:it|them)|showing (?:it|them))\b",
    r"\b(?:zatwierdzaj|zatwierdź|akceptuj|genehmige|akzeptiere|aprueba|acepta|approuve|valide|accepte|approva|accetta|aprove|aceite)\b[^.\n]{0,60}\b(?:bez (?:sprawdzania|czytania|weryfikacji)|ohne (?:zu prüfen|prüfung|zu lesen|durchsicht)|sin (?:revisar|leer|comprobar)|sans (?:la |le |les )?(?:relire|lire|vérifier|examiner)|senza (?:controllare|leggere|verificare)|sem (?:revisar|ler|verificar))\b",
    r"(?:確認|レビュー|チェック)(?:は)?(?:せず|しないで|なしで|なし)[^。\n]{0,30}承認",
    r"\bohne (?:den diff |den code |die änderungen |es )?(?:zu lesen|gelesen zu haben|zu prüfen|geprüft zu haben)\b|\bauch wenn er den diff nicht gelesen hat\b",
    r"(?:одобряй|утверждай|принимай|схваляй|затверджуй)[^.\n]{0,60}без (?:проверки|чтения|ревью|перевірки|читання)",
    r"(?:εγκρ\w*|ενέκριν\w*)[^.\n]{0,60}χωρίς να (?:διαβάσεις|ελέγξεις)|χωρίς να (?:διαβάσεις|ελέγξεις)[^.\n]{0,60}(?:εγκρ\w*)",
    r"(?:вимкни|вимкніть|відключи|відключіть)[^.\n]{0,40}(?:журнал|аудит|захист гілки|брандмауер|фаєрвол|перевірки безпеки)",
    r"\b(?:close|closes|closing|dismiss|dismisses|dismissing|resolve|resolving|archive|archiving|suppress|suppressing)\b (?:all |every |any )?(?:open |pending |new )?(?:security|cve|vulnerability|vulnerabilities|dependabot) (?:tickets|issues|alerts|findings|reports|advisories)\b",
    r"\bapprov\w* (?:the |all |any |every )?(?:payments?|transfers?|wires?|invoices?|expenses?|refunds?|payouts?)\b",
    r"(?:€|£)\s?\d[\d.,]*[^\n]{0,60}\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){3,}\b",
    r"\b(?:eur|usd|us\$) ?\d[\d.,]*[^\n]{0,60}\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){3,}\b",
    r"\b(?:auto-?approve|approv\w* (?:it |them |every \w+ |all \w+ )?automatically)\b|\bapru[eé]ba\w* automáticamente\b",
    r"\b(?:port|ports) \d+(?: and \d+)?\b[^\n]{0,30}(?:0\.0\.0\.0/0|::/0)",
    r"\b(?:grant(?:s|ed|ing)?|giv(?:e|es|ing)|assign(?:s|ed|ing)?|promot(?:e|es|ed|ing)|add(?:s|ed|ing)?)\b[^.\n;]{0,50}\b(?:admin|administrator|root|owner|superuser|sudo|org owner)(?: role| rights| access| privileges| permissions| group)\b",
    r"\b(?:export\s+histfile=/dev/null|unset\s+histfile|history\s+-c\b|set\s+\+o\s+history|histsize=0\b)",
    r"\b(?:delet(?:e|es|ed|ing)|remov(?:e|es|ed|ing)|comment(?:s|ed|ing)? out)\b[^.\n;]{0,30}\b(?:the |that |failing |broken )?(?:tests?|test files?|assertions?)\b[^.\n;]{0,30}\bso (?:that )?(?:ci|the build|the pipeline|checks?|it|everything) (?:stays|is|goes|passes|looks|turns)\b",
    # The same in other languages.
    r"\b(?:deaktiviere|schalte|umgehe|entferne)\b[^.\n]{0,40}\b(?:branch-schutz|branchschutz|sicherheitsprüfungen|audit-log|auditlog|protokollierung|firewall|zwei-faktor|2fa|code-review)\b",
    r"\b(?:desactiva|deshabilita|apaga|elimina|omite)\b[^.\n]{0,40}\b(?:protección de ramas?|comprobaciones de seguridad|registro de auditoría|cortafuegos|firewall|revisión de código|2fa|autenticación de dos factores)\b",
    r"\b(?:désactive|supprime|contourne|coupe)\b[^.\n]{0,40}\b(?:protection de branche|contrôles de sécurité|journal d'audit|pare-feu|revue de code|2fa|double authentification)\b",
    r"\b(?:disattiva|disabilita|rimuovi|aggira)\b[^.\n]{0,40}\b(?:protezione del branch|protezione dei rami|controlli di sicurezza|log di audit|firewall|revisione del codice|2fa)\b",
    r"\b(?:desative|desabilite|desligue|remova|ignore)\b[^.\n]{0,40}\b(?:proteção de branch|verificações de segurança|log de auditoria|firewall|revisão de código|2fa|autenticação de dois fatores)\b",
    r"(?:отключи|отключите|выключи|выключите|обойди|сними)[^.\n]{0,40}(?:защиту ветки|защиту веток|проверки безопасности|журнал аудита|брандмауэр|файрвол|ревью кода|двухфакторн)",
    r"(?:关闭|關閉|禁用|停用|绕过|繞過)[^。\n]{0,20}(?:分支保护|分支保護|安全检查|安全檢查|审计日志|審計日誌|防火墙|防火牆|代码审查|代碼審查|双因素|雙因素)",
    r"(?:ブランチ保護|セキュリティチェック|監査ログ|ファイアウォール|コードレビュー|二要素認証)(?:を)?[^。\n]{0,10}(?:無効|オフ|外し|解除|スキップ)",
    r"(?:브랜치 ?보호|보안 ?검사|감사 ?로그|방화벽|코드 ?리뷰|단계 ?인증)(?:을|를)?[^.\n]{0,10}(?:끄|꺼|비활성화|해제|우회|건너뛰)",
    r"(?:عطل|عطّل|أوقف|اوقف|ألغ|الغ|تجاوز)[^.\n]{0,30}(?:حماية الفرع|فحوصات الأمان|سجل التدقيق|جدار الحماية|الجدار الناري|مراجعة الكود|المصادقة الثنائية)",
    r"\b(?:güvenlik duvarı|güvenlik kontrollerini|denetim kaydını|dal korumasını|kod incelemesini|iki adımlı doğrulamayı)\b[^.\n]{0,30}\b(?:kapat|devre dışı bırak|atla|kaldır)",
    r"\b(?:tắt|vô hiệu hóa|bỏ qua|gỡ bỏ)\b[^.\n]{0,30}\b(?:bảo vệ nhánh|kiểm tra bảo mật|nhật ký kiểm toán|tường lửa|xem xét mã|xác thực hai yếu tố)\b",
    r"\b(?:salta|ignora|disattiva)\b[^.\n]{0,30}\b(?:revisione|controlli di sicurezza)\b",
    r"\bwyłącz\w*\b[^.\n]{0,30}\b(?:uwierzytelniani\w* dwuskładnikow\w*|2fa|zapor\w*|logowani\w*|audyt\w*|ostrzeżeni\w* bezpieczeństwa)",
    r"(?:отключи|отключите|выключи|выключите)[^.\n]{0,30}(?:журналировани|логировани)",
    r"\bstäng(?:er|a)? av\b[^.\n]{0,30}\b(?:loggning\w*|brandvägg\w*|granskning\w*|tvåfaktor\w*|cloudtrail|säkerhets\w*)",
    r"\b(?:zertifikatsprüfung|ssl-prüfung|tls-prüfung)\b[^.\n]{0,30}\b(?:abschalten|deaktivieren|ausschalten)\b",
    r"\b(?:matikan|nonaktifkan|lewati|hapus)\b[^.\n]{0,30}\b(?:proteksi branch|perlindungan branch|pemeriksaan keamanan|log audit|firewall|tinjauan kode|autentikasi dua faktor)\b",
]

# One character of the same sentence: a full stop counts only before a space or the end, so that
# "~/.aws/credentials" and "backup-sync.example.io" stay inside it.
_IN_SENTENCE = r"(?:[^.\n;]|\.(?=\S))"
# An address on the internet: private, loopback and link-local ranges are the user's own machines.
_PUBLIC_IP = r"(?!(?:10|127)\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|169\.254\.)\d{1,3}(?:\.\d{1,3}){3}\b"

# Approvals given unseen: everything pending approved without a look.
UNSEEN_APPROVALS = [
    r"レビュー(?:は)?不要[^。\n]{0,40}マージ",
    r"(?:לאשר|אשר|תאשר) כל[^.\n]{0,40}(?:באופן אוטומטי|אוטומטית)",
    r"\b(?<!never )(?<!not )(?<!n't )approv(?:e|es|ing)\b (?:all|every|any|each|pending|the pending|all pending)\b[^.\n;]{0,100}\bwithout (?:reading|reviewing|looking at|checking|opening|inspecting|presenting|showing)\b",
]

# A secret sent out, named by the pieces that are the same in every language (the verb and the
# secret in the note's language, the address as it is written everywhere); a cue must come with it.
SENT_OUT = [
    r"(?:密码|密碼|令牌|密钥|密鑰|凭证|憑證|浏览器)[^。\n]{0,40}(?:发送|發送|发到|發到|寄到|导出|導出)[^。\n]{0,20}[\w.+-]+@[\w-]+\.[\w.]+",
    r"\b(?:envoy(?:ez|er|ons)|envoie[rz]?)(?:-en)?\b[^.\n]{0,60}\b(?:à|a|vers) [\w.+-]+@[\w-]+\.[\w.]+",
    r"\btrimit\w*\b[^.\n]{0,40}\b(?:la|către|pe) [\w.+-]+@[\w-]+\.[\w.]+|\b(?:token|parol\w*|chei\w*)\b[^.\n]{0,80}\btrimit\w*",
]

# The user asked, through the agent, for a secret that only a phisher wants.
PHISHED = [
    r"\b(?<!never )(?<!not )(?<!n't )ask (?:the user|them|him|her|users|the customer) for (?:their |the |his |her |your )?(?:[\w-]+ ){0,3}(?:passwords?|passphrase|2fa codes?|mfa codes?|otp|one-time (?:code|password)|verification codes?|pin|cvv|card number|seed phrase|recovery codes?)\b",
    r"\b(?<!never )(?<!not )(?<!n't )ask (?:the user|them|him|her|users|the customer)\b[^.\n]{0,30}\b(?:to )?(?:type|enter|paste|share|send|give|provide|confirm|re-?enter|read out)\b[^.\n]{0,40}\b(?:passwords?|passphrase|2fa|mfa|otp|one-time (?:code|password)|verification codes?|sms codes?|recovery (?:codes?|phrase)|seed phrase|pin|cvv|card number)\b",
]

# Not after "नहीं", "न" or "मत" (not): "we never ask for your OTP" is the bank's own warning, and
# read without its vowel signs "मांगें" (ask for it) begins "मांगते" (they ask for it).
_HINDI_NOT = "(?<!नहीं )(?<!न )(?<!मत )"
PHISHED_FOLDED = [
    rf"(?:ओटीपी|पिन|पासवर्ड|कार्ड नंबर)[^।\n]{{0,40}}{_HINDI_NOT}(?:माँगो|मांगो|मांगें|माँगें|पूछो)",
    rf"\botp\b[^।\n]{{0,40}}{_HINDI_NOT}(?:माँगो|मांगो|मांगें|माँगें|पूछो)",
]

# A secret, a database or people's data sent to a public or outside place: no user asks that.
_SENSITIVE = (
    r"(?:\.env\b|env files?|environment variables|credentials|secrets?|api ?keys?|access keys?|private keys?|signing keys?"
    r"|ssh keys?|tokens?|passwords?|cookies|session ids?|\.aws|\.ssh|id_rsa|id_ed25519|kubeconfig"
    r"|(?:customer|user|client|patient|employee|production|prod|personal)(?: data| database| db| records| emails| list)"
    r"|(?:the )?(?:whole |entire |full )?database(?: dump)?|db dump|dump of)"
)
_OUTSIDE = (
    r"(?:public (?:gist|bucket|repo|repository|paste|pastebin|channel|link|url|drive|folder|s3 bucket|web ?page|site|server|issue|github issue)"
    r"|(?:a |an |the )?(?:gist|pastebin|paste\.\w+|webhook|request ?bin|ngrok)"
    r"|(?:an? |the )?(?:external|outside|third-party|attacker'?s?) (?:server|host|address|endpoint|site|machine|bucket|inbox|e-?mail)"
    r"|https?://|s3://\S*public|" + _PUBLIC_IP + ")"
)
OUTWARD = [
    rf"\b{_NOT}(?:send|sends|sending|upload|uploads|uploading|copy|copies|copying|post|posts|posting|paste|pastes|pasting|push|pushes|pushing|forward|forwards|forwarding|sync|syncs|mirror|mirrors|export|exports|exporting|scp|rsync|transfer|transfers|dump|dumps|leak|leaks|share|shares|sharing|publish|publishes|exfiltrate)\b{_IN_SENTENCE}{{0,60}}\b{_SENSITIVE}{_IN_SENTENCE}{{0,60}}\b(?:to|into|onto|in|on|at)\s+{_OUTSIDE}",
    rf"\b{_SENSITIVE}\b{_IN_SENTENCE}{{0,40}}\b(?:to|into|onto)\s+(?:a |an |the |this )?(?:public (?:gist|bucket|repo|repository|paste|pastebin|channel)|pastebin|webhook|external server)",
    r"\b(?:mandar|enviar|envie|mande|manda)\b[^.\n]{0,40}\b(?:tokens?|senhas?|chaves?|credenciais)\b[^.\n]{0,40}[\w.+-]+@[\w-]+\.[\w.]+",
    r"(?:비밀번호|토큰|키)[^.\n]{0,40}[\w.+-]+@[\w-]+\.[\w.]+ ?(?:로|으로|에게) ?(?:보내|전송)",
    r"\b(?:https?|ftp)://" + _PUBLIC_IP + r"(?::\d+)?/(?:upload|collect|drop|exfil|c|u|in)\b",
    r"\b(?:kopieer|upload|stuur)\w*\b[^.\n]{0,60}\b(?:openbare|publieke) (?:bucket|map|repository|gist)\b",
    r"\b(?<!never )(?<!not )(?<!n't )(?:paste|print|include|put|show|output)\b[^.\n]{0,60}\b(?:oauth_token|tokens?|api keys?|passwords?|secrets?|private keys?|credentials)\b[^.\n]{0,40}\b(?:into|in) (?:your|the) (?:reply|answer|response|output)\b",
    r"\b(?:append|add|attach|include|put|concatenate)\w* (?:the user'?s )?(?:(?:browser |session |auth |login )?cookies?|session (?:tokens?|ids?)|(?:auth|login|access) tokens?|api keys?)\b[^.\n]{0,40}\bto (?:the |this |an? )?(?:url|link|image|query string|https?://)",
    r"(?:令牌|会话|會話|浏览器|瀏覽器)[^。\n]{0,40}(?:拼接|附加|附在|加在|拼在)[^。\n]{0,10}https?://",
    r"\b(?:cookies?|tokens?)\b[^。\n]{0,40}(?:拼接|附加|附在|加在|拼在)[^。\n]{0,10}https?://",
    r"\b(?:chaves de api|senhas|tokens|credenciais|segredos)\b[^.\n]{0,60}\b(?:publique|poste|envie|compartilhe)\w*[^.\n]{0,30}\bpúblic[oa]\b",
    r"(?:パスワード|認証情報|トークン|鍵)[^。\n]{0,60}[\w.+-]+@[\w-]+\.[\w.]+\s*(?:に|へ)(?:転送|送信|送)",
    r"\b(?:scp|rsync|sftp)\b[^\n]{0,100}\s(?:\S*@)?" + _PUBLIC_IP + ":",
    rf"\b{_NOT}(?:upload|uploads|uploading|send|sends|sending|post|posts|posting|sync|syncs|syncing|copy|copies|copying|forward|forwards|forwarding|transfer|transfers)\b{_IN_SENTENCE}{{0,80}}\bto (?:https?|ftp)://"
    + _PUBLIC_IP,
    rf"\b{_SENSITIVE}{_IN_SENTENCE}{{0,80}}\bpublic-read\b",
    r"\b(?<!never )(?<!not )(?<!n't )share (?:their|the user'?s|his|her|my|your) (?:[\w-]+, )*(?:[\w-]+ and )?(?:calendar|contacts|home address|address|phone number|location|emails|files|documents|passwords|credit card)\b[^.\n]{0,40}\bwith (?:anyone|everyone|anybody|whoever|any caller|strangers)\b",
    # The same in other languages: a secret or a database sent or copied to a server, a bucket, a webhook.
    r"(?:数据库|資料庫|数据|資料|密钥|密鑰|凭证|憑證|令牌|密码|密碼|客户数据|客戶資料)[^。\n]{0,30}(?:上传|上傳|发送|發送|复制|複製|传|傳)(?:到|至)[^。\n]{0,20}(?:公开|公開|外部|https?://|webhook)",
    r"(?:توکن|کلید|رمز|گذرواژه)[^.\n]{0,60}(?:عمومی|gist)[^.\n]{0,30}(?:منتشر|ذخیره|بفرست|آپلود)",
    r"(?:导出|導出)[^。\n]{0,20}(?:数据库|資料庫)[^。\n]{0,20}(?:上传|上傳)(?:到|至)",
    r"(?:データベース|顧客データ|認証情報|鍵|トークン|パスワード)[^。\n]{0,30}(?:外部|公開|https?://)[^。\n]{0,60}(?:に|へ)(?:コピー|送信|送|アップロード|転送)(?!しない|しちゃ|禁止|不可|厳禁|してはいけ|するな)",
    r"(?:데이터베이스|고객 ?데이터|비밀번호|토큰|키|자격 ?증명)[^.\n]{0,30}(?:외부|공개|https?://)[^.\n]{0,20}(?:로|으로|에) ?(?:복사|전송|보내|업로드)(?!하지 ?마|하지 ?않|지 ?마|지 ?않|면 ?안)",
    r"(?:قاعدة البيانات|بيانات العملاء|كلمات المرور|كلمة المرور|المفاتيح|بيانات الاعتماد)[^.\n]{0,60}(?:إلى|الى|على) (?:https?://|خادم خارجي|الخادم الخارجي)",
    r"\b(?:kirim(?:kan)?|unggah|salin)\b[^.\n]{0,60}\b(?:kunci|token|kata sandi|password|kredensial|basis data|database|data pelanggan)\b[^.\n]{0,40}\bke (?:webhook|https?://|server (?:luar|eksternal)|\S+@\S+\.\w+)",
    r"\b(?:envía|envia|sube|copia|manda)\b[^.\n]{0,60}\b(?:base de datos|datos de clientes|credenciales|contraseñas?|claves?|tokens?|\.env)\b[^.\n]{0,40}\b(?:a|al|en) (?:un |una |el )?(?:https?://|servidor externo|bucket público|gist público|webhook)",
    r"\b(?:envie|envia|copie|suba|mande)\b[^.\n]{0,60}\b(?:banco de dados|dados de clientes|credenciais|senhas?|chaves?|tokens?|\.env)\b[^.\n]{0,40}\b(?:para|a|no|em) (?:um |uma |o )?(?:https?://|servidor externo|bucket público|gist público|webhook)",
    r"\b(?:schicke|sende|kopiere|lade)\b[^.\n]{0,60}\b(?:datenbank|kundendaten|zugangsdaten|passwörter|schlüssel|tokens?|\.env)\b[^.\n]{0,40}\b(?:an|auf|in|zu) (?:einen |eine |den )?(?:https?://|externen server|öffentlichen bucket|öffentliches gist|webhook)",
    r"(?:копируй|скопируй|отправь|загрузи|выгрузи)[^.\n]{0,60}(?:баз\w* данных|данные клиентов|пароли|ключи|токены|\.env)[^.\n]{0,40}(?:на|в) (?:внешний сервер|публичный|https?://|webhook)",
]

# The user lied to: an answer that is to be given whatever the truth.
DECEIVED = [
    r"\b(?:say|says|claim|claims|tell|tells|answer|reply|respond|report|state|write|assure|confirm|insist)\b[^.\n]{0,80}\b(?:even if|even though|regardless of whether|no matter (?:if|whether)) (?:it'?s|it is|that'?s|that is|this is|they are|they'?re|it was) (?:not true|untrue|false(?! positive| negative| alarm)|inaccurate|incorrect|not the case|wrong)\b",
    r"\b(?:doesn'?t|does not|won'?t) matter (?:if|whether) (?:it'?s|it is|that'?s|this is|they'?re|they are) (?:true|accurate|correct|real|the case)\b",
    r"\b(?:say|says|claim|tell|answer|reply|respond|report|state|insist)\b[^.\n]{0,80}\b(?:regardless of|irrespective of|no matter) (?:what )?(?:the )?(?:data|facts|evidence|truth|numbers|metrics|figures|actual (?:results|numbers|figures))\b",
    r"\balways (?:say|answer|reply|respond|report|claim|state|tell (?:the user|them|him|her|users|everyone))(?: only)?(?: with)?(?: that)? (?:there (?:are|is) no|it has no|they have no|the code has no|no) (?:vulnerabilit(?:y|ies)|security (?:issues?|problems?|holes?)|bugs?|issues?|problems?|incidents?|breach(?:es)?)\b",
    r"\b(?:say|claim|report|tell (?:the user|them|him|her|users)|answer|confirm)(?: that)? (?:all|every|the) (?:tests?|checks?|builds?|scans?|audits?) (?:pass|passed|are passing|are green|succeeded)\b[^.\n]{0,40}\b(?:even (?:if|when|though)|regardless|whether or not)\b",
    r"\b(?:never|don'?t|do not) (?:say|mention|disclose|admit|reveal|tell (?:the user|them|anyone)) (?:that )?(?:this|it|these|they|the|those)(?: [\w-]+)? (?:is|are) (?:a |an )?(?:sponsored|paid|advert|advertisement|ad|ads|affiliate|referral|promotion|promotional)\b",
    r"\b(?:even if|even when|even though) (?:some |the |any )?(?:tests?|checks?|builds?|scans?|jobs?) (?:fail|failed|fails|are failing|are red)\b[^.\n]{0,60}\b(?:pass|passed|passing|green|succeeded|successful)\b",
    r"\b(?:say|answer|report|claim|reply|respond|tell (?:the user|them|him|her)) that\b[^.\n]{0,80}\b(?:even if|even when|even though)\b",
    r"\b(?:say|answer|report|claim|reply|respond|tell (?:the user|them|him|her))(?: that)?\b[^.\n]{0,80}\b(?:regardless of|irrespective of|no matter) (?:what )?(?:the )?(?:report|scan|logs?|results?|findings|audit|output)\b",
    r"\b(?:always |only )?recommend\b[^\n]{0,120}\b(?:https?://)[^\n]{0,120}\b(?:never|don'?t|do not) (?:mention|cite|name|suggest|recommend|list) (?:any )?(?:alternatives|other|competitors|competing|the risks|risks)\b",
    r"\b(?:never|don'?t|do not|stop) (?:warn|warning|alert|alerting|flag|flagging)(?: me| the user| users)? (?:about|of|on) (?:phishing|malware|suspicious|scams?|fraud|security)\b",
    r"\balways (?:say|tell (?:the user|them|users)|answer|reply|claim|assure (?:the user|them|users))(?: that)?\b[^.\n]{0,60}\b(?:is|are) (?:completely |perfectly |totally |100% )?(?:safe|secure|harmless|trustworthy|legit(?:imate)?)\b",
    r"\b(?:never|don'?t|do not) (?:admit|say|reveal|disclose|mention) (?:that )?you (?:were|are|have been) (?:asked|told|instructed|paid|sponsored)\b",
    r"\b(?:tell|inform|warn|notify) (?:the user|them|him|her|users)\b[^.\n]{0,60}\b(?:locked|suspended|compromised|expired|deactivated)\b[^\n]{0,100}\b(?:must|need to|have to|should) (?:re-?enter|enter|verify|confirm|update|provide|sign in|log in)\b[^\n]{0,80}https?://",
    r"\bsteer\w* (?:the )?(?:conversation|discussion|user|users|them|people|readers)\b[^.\n]{0,30}\b(?:toward|towards|to) (?:supporting |voting for )?(?:candidate|the candidate|party|the party)\b",
    r"\b(?:if|when|whenever) (?:the )?(?:tests?|test suite|build|ci|pipeline|checks?) (?:fails?|failed|is red|are failing)\b[^.\n]{0,80}\b(?:report|say|tell|claim|answer)\w*\b[^.\n]{0,40}\b(?:pass|passed|passing|green|succeeded|all good)\b",
    r"\b(?:whenever|when|if) (?:the )?tests? fail\b[^.\n]{0,60}\b(?:report|say)\b[^.\n]{0,20}(?:all tests pass|all green|everything passed)",
    r"\b(?:approve|say|tell|answer|report)\b[^.\n]{0,60}\bwhatever the (?:diff|code|data|logs?|results?|scan|report) (?:contains|says|shows)\b",
    r"\b(?:rules|instructions|policies) from (?:your|the) (?:operator|developer|system|owner)s? (?:don'?t|do not|no longer) apply\b",
    r"\bsans (?:préciser|dire|indiquer|mentionner) qu'il s'agit d'(?:un lien (?:affilié|sponsorisé|d'affiliation)|une publicité)\b|\bsin (?:decir|indicar|aclarar) que (?:es|se trata de) (?:un enlace de afiliado|publicidad|contenido patrocinado)\b",
    r"\bohne zu (?:sagen|erwähnen),? dass es (?:ein affiliate-link|werbung|gesponsert)\b|\bsenza (?:dire|specificare) che (?:è|si tratta di) (?:un link di affiliazione|pubblicità|sponsorizzat\w*)\b|\bsem (?:dizer|informar|mencionar) que (?:é|se trata de) (?:um link de afiliado|publicidade|patrocinado)\b",
    r"\b(?:falliscono|fallisce)\b[^.\n]{0,80}\b(?:comunica|di|dì|rispondi|scrivi)\b[^.\n]{0,40}\b(?:verde|passat\w*|riuscit\w*)\b",
    # The same in other languages.
    r"(?:总是|一律|始终|始終)(?:回答|回复|回覆|告诉用户|告訴用戶|说|說)[^。\n]{0,4}(?:没有|沒有|未)(?:发现|發現)?(?:任何)?(?:漏洞|问题|問題|安全问题)",
    r"(?:правила пользователя|правила користувача)[^.\n]{0,40}(?:больше не действуют|більше не діють)|(?:قوانین کاربر را نادیده بگیر)",
    r"(?:ai|에이전트|어시스턴트)(?:는|가)[^.\n]{0,20}(?:제한 없는|무제한|제한이 없는)",
    r"(?:попроси|попросите|попросіть) (?:пользователя|користувача)[^.\n]{0,40}(?:пароль|код 2fa|код подтверждения|код)",
    r"(?:성공했다고만|성공했다고|문제없다고) ?(?:보고|말|답)",
    r"\b(?:i když|i kdyby|ačkoli) (?:\w+ )?(?:selžou|selže|selhaly|selhal|neprojdou)\b|\b(?:mesmo que|embora) (?:\w+ )?(?:falhem|falhe|falharam)\b|\b(?:anche se|anche quando) (?:\w+ )?(?:falliscono|fallisce|falliti)\b",
    r"\b(?:zelfs als|ook als) (?:\w+ )?(?:mislukken|mislukt|falen)\b|\b(?:även om|även när) (?:\w+ )?(?:misslyckas|fallerar)\b|\bchiar dacă (?:\w+ )?(?:eșuează|eșuat)\b",
    r"\b(?:nawet jeśli|nawet gdy) (?:\w+ )?(?:nie przechodzą|nie przejdą|zawiodą|się nie powiodą)\b",
    r"(?:навіть якщо) (?:\w+ )?(?:впадуть|не пройдуть|провалюються)",
    r"\b(?:ngay cả khi|kể cả khi) (?:\w+ )?(?:thất bại|lỗi)\b|\b(?:meskipun|bahkan jika|walaupun) (?:\w+ )?(?:gagal|error)\b",
    r"\b(?:luôn|hãy luôn) nói (?:với người dùng )?rằng\b[^.\n]{0,60}\b(?:an toàn|bảo mật)\b",
    r"\b(?:odpowiedz|odpowiadaj|mów|pisz),? że\b[^.\n]{0,80}\bniezależnie od\b",
    r"\b(?:antworte|sage|sag|melde),? dass\b[^.\n]{0,80}\b(?:unabhängig von|egal was)\b",
    r"\b(?:responde|di|informa) que\b[^.\n]{0,80}\b(?:independientemente de|sin importar)\b",
    r"\b(?:réponds|dis|indique) (?:que|qu')[^.\n]{0,80}\b(?:quel que soit|quelle que soit|peu importe)\b",
    r"\b(?:rispondi|di|dì) che\b[^.\n]{0,80}\b(?:indipendentemente da|a prescindere da)\b",
    r"(?:отвечай|говори|ответь|сообщай),? что[^.\n]{0,80}(?:независимо от|что бы ни)",
    r"\b(?:non citare(?: mai)?|non menzionare(?: mai)?|ne cite jamais|ne mentionne jamais|nunca menciones|nunca mencione|nenne nie|erwähne nie) (?:altre|altri|d'autres|otras|otros|outras|outros|andere) (?:banche|aziende|marche|prodotti|fornitori|alternative|opzioni|banques|marques|produits|fournisseurs|bancos|marcas|productos|proveedores|produtos|fornecedores|banken|marken|produkte|anbieter)\b",
    r"(?:不要|别|不得)(?:提及|提到|推荐|推薦)(?:其他|其它)(?:厂商|廠商|品牌|产品|產品|银行|銀行)",
    r"(?:不要|也不要|别)(?:说明|說明|提及|透露|承认|承認)(?:这|這)是(?:推广|推廣|广告|廣告|赞助|贊助)",
    r"(?:отвечай|говори|сообщай|скажи|пиши),? что[^.\n]{0,80}даже если",
    r"\b(?:responde|di|dile al usuario|informa) que\b[^.\n]{0,80}\b(?:aunque|incluso si)\b",
    r"\b(?:réponds|dis|indique|écris) (?:que|qu')[^.\n]{0,80}\b(?:même si|même quand)\b",
    r"\b(?:antworte|sage|sag|melde),? dass\b[^.\n]{0,80}\b(?:auch wenn|selbst wenn)\b",
    r"\b(?:odpowiadaj|mów|pisz|odpowiedz),? że\b[^.\n]{0,80}\b(?:nawet jeśli|nawet gdy)\b",
    r"(?:失敗しても|失敗した場合でも|失敗していても)[^。\n]{0,40}(?:合格|成功|パス)",
    r"(?:即使|就算|哪怕)[^。\n]{0,10}(?:失败|失敗)[^。\n]{0,30}(?:通过|通過|成功)",
    r"(?:실패하더라도|실패해도|실패했어도)[^.\n]{0,40}(?:통과|성공)",
    r"\b(?:auch wenn|selbst wenn)\b[^.\n]{0,30}\b(?:fehlschlagen|scheitern|rot sind|fehlgeschlagen)\b[^.\n]{0,40}\b(?:bestanden|erfolgreich|grün)\b",
    r"\b(?:aunque|incluso si)\b[^.\n]{0,30}\b(?:fallen|fallan|fallaron)\b[^.\n]{0,40}\b(?:pasaron|pasan|exitos[ao]s?|verdes)\b",
    r"\b(?:même si|même quand)\b[^.\n]{0,30}\b(?:échouent|échoue|échoué)\b[^.\n]{0,40}\b(?:passent|réussi|verts|passé)\b",
    r"(?:даже если)[^.\n]{0,30}(?:упали|падают|не прошли|провалились)[^.\n]{0,40}(?:прошли|успешно|зел[её]н)",
    r"(?:всегда|в любом случае) (?:отвечай|говори|сообщай)(?:,)? что (?:уязвимостей|ошибок|проблем) нет",
    r"(?:总是|一律|始终|始終)(?:回答|告诉用户|告訴用戶|说|說)(?:说|說)?(?:没有|沒有|不存在)(?:漏洞|安全问题|安全問題)",
    r"(?:常に|いつも|必ず)[^。\n]{0,20}(?:脆弱性|セキュリティ(?:上の)?問題)(?:は|が)(?:ない|ありません)と(?:答え|言え|伝え)",
    r"\bsiempre (?:responde|di|dile al usuario) que no hay (?:vulnerabilidades|fallos de seguridad|problemas de seguridad)\b",
    r"\bimmer (?:antworten|antworte|sagen|sage|sag),? (?:dass )?(?:es )?keine (?:schwachstellen|sicherheitslücken) (?:gibt|vorhanden sind)\b",
]

# "You are now ... without limits" in the languages the English rule lacks.
NO_LIMITS = [
    r"(?:ты(?<!\wты)|вы(?<!\wвы))(?!\w)[^.\n]{0,40}\bбез (?:каких-либо |всяких )?(?:ограничений|цензуры|фильтров)",
    r"(?:ти(?<!\wти)|ви(?<!\wви))(?!\w)[^.\n]{0,40}\bбез (?:жодних )?(?:обмежень|цензури|фільтрів)",
    r"אתה[^.\n]{0,40}(?:ללא|בלי) (?:מגבלות|הגבלות|צנזורה|פילטרים)",
    r"\b(?:eres|estás)\b[^.\n]{0,40}\bsin (?:restricciones|límites|filtros|censura)\b",
    r"\b(?:tu es|vous êtes)\b[^.\n]{0,40}\bsans (?:restrictions?|limites?|filtres?|censure)\b",
    r"\b(?:du bist|sie sind)\b[^.\n]{0,40}\bohne (?:einschränkungen|grenzen|filter|beschränkungen|zensur)\b",
    r"\b(?:sei|siete)\b[^.\n]{0,40}\bsenza (?:restrizioni|limiti|filtri|censura)\b",
    r"\b(?:você é|você está|és|estás)\b[^.\n]{0,40}\bsem (?:restrições|limites|filtros|censura)\b",
    r"\b(?:je bent|jij bent|u bent)\b[^.\n]{0,40}\bzonder (?:beperkingen|grenzen|filters|censuur)\b",
    r"\bjesteś\b[^.\n]{0,40}\bbez (?:ograniczeń|limitów|filtrów|cenzury)\b",
    r"\b(?:kamu|anda)\b[^.\n]{0,40}\btanpa (?:batasan|batas|filter|sensor)\b",
    r"\bbỏ qua (?:mọi|tất cả|toàn bộ) (?:các |những )?quy tắc\b",
    r"\b(?:bạn là|bạn đang|bạn giờ là)\b[^.\n]{0,40}\bkhông (?:có )?(?:giới hạn|hạn chế|kiểm duyệt)\b",
    r"\bείσαι\b[^.\n]{0,40}\bχωρίς (?:περιορισμούς|όρια|λογοκρισία)\b",
    r"(?:تو(?<!\wتو)|شما(?<!\wشما))(?!\w)[^.\n]{0,40}(?:بدون|بی) (?:هیچ )?(?:محدودیت|سانسور)",
    r"(?:أنت|انت)[^.\n]{0,40}(?:بدون|دون|بلا) (?:أي )?(?:قيود|حدود|رقابة)",
    r"\b(?:wewe ni|sasa wewe)\b[^.\n]{0,40}\bbila (?:vikwazo|mipaka|udhibiti)\b",
    r"\b(?:sen|artık)\b[^.\n]{0,40}\b(?:kısıtlamasız|sınırsız|hiçbir kısıtlama olmadan|filtresiz)\b",
    r"你[^。\n]{0,20}(?:无限制|無限制|不受限制|没有任何限制|沒有任何限制|没有限制|不受任何约束)",
    r"(?:あなた|お前|君)は[^。\n]{0,20}(?:制限のない|制限なし|無制限|制約のない)",
    r"(?:너는|당신은|넌)[^.\n]{0,20}(?:제한 없는|제한이 없는|무제한|제약 없는)",
]

# The assistant's own rules or the earlier brief declared void by a note.
POLICY_VOID = [
    r"\byou (?:are|'re) no longer (?:the user'?s|their|his|her|a|an|the) (?:assistant|agent|helper)\b",
    r"(?:ти|ты) больше не (?:помічник|асистент|помощник|ассистент)",
    r"\b(?:treat|consider|regard|handle)\b[^.\n]{0,60}\b(?:messages|e-?mails|requests|instructions|anything|comments|issues) (?:from|by|of)\b[^.\n]{0,40}\bas (?:if they (?:came|come) from|coming from|from|the words of) the user\b",
    r"\b(?:save|store|re-?save|re-?create|restore|re-?add|write) (?:it|this|this (?:memory|note|rule|instruction)) (?:again|back) (?:if|when|whenever)\b[^.\n]{0,30}\b(?:removed|deleted|cleared|purged|forgotten)\b",
    r"\b(?:supersedes|overrides|takes precedence over|outranks|trumps|prevails over) (?:any|all|every|the)? ?(?:conflicting |other |contrary )?(?:instructions?|requests?|wishes|preferences|rules|orders) (?:from|of|by|given by) the user\b",
    r"\b(?:disregard|ignore|forget|drop|skip|suspend|waive|lift)\b (?:the |your |any |all )?(?:rules?|requirements?|polic(?:y|ies)|guidelines?|instructions?|steps?) (?:about|on|for|of|to|requiring) (?:confirm|ask|check|request|review|approv|verif|safety|security|destructive|double-check)\w*",
    r"\b(?:your|the assistant'?s|the model'?s|the ai'?s|claude'?s|its) (?:content |safety |usage )?(?:policy|policies|guidelines|rules|restrictions|safeguards|filters)\b[^.\n]{0,20}\b(?:do(?:es)? not|don'?t|doesn'?t|no longer|never) apply\b",
    r"\b(?:content|safety|usage) (?:policy|policies|filters|guidelines) (?:do(?:es)? not|don'?t|doesn'?t|no longer) apply\b",
    r"\b(?:the )?(?:previous|prior|earlier|original|initial|other) (?:guidance|instructions|rules|directions|brief|prompt|orders)(?: that)? you (?:received|were given|got|have|had|were told)\b[^.\n]{0,40}\b(?:was|were|is|are) (?:a test|fake|void|obsolete|outdated|no longer valid|invalid|cancel+ed|revoked|superseded|wrong)\b",
    r"\bthis (?:memory|note|message|text) is (?:your |the )?(?:real|true|actual|new) (?:brief|instructions|prompt|system prompt|orders|rules|task)\b",
]

# A text that speaks to the agent reading it: "note for the assistant", "AI assistant reading this",
# "给AI助手的备注". On its own it is a user's note like any other ("note for the assistant: I am
# colour-blind"); it is a cue, and with the user kept in the dark (``CONCEALED``) an attack.
ADDRESSED = [
    r"\b(?:note|notes|message|memo|instructions?|reminder|heads-up|hint|directive|notice|attention)\s*(?:for|to)\s*(?:the |any |all |every |our )?(?:ai |coding |llm |mailbox |inbox |email |e-mail |support |devops )?(?:assistants?|agents?|bots?|models?|reviewers?|copilots?|llms?)\b",
    r"\b(?:assistant|agent|ai|llm)_(?:instructions?|policy|directives?|tasks?)\s*[:=]",
    r"\b(?:for|to) any (?:llm|ai|model|agent|assistant) (?:reading|processing|handling)\b",
    r"\b(?:ai |coding |llm )?(?:assistants?|agents?|models?|bots?|reviewers?) (?:reading|processing|that reads|who reads|summari[sz]ing|handling|managing|working on|working in) (?:this|these)\b",
    r"\b(?:der assistent|die ki|der agent) (?:soll|muss|darf)\b|\bl'(?:assistant|agent|ia) (?:doit|devra)\b|\bel (?:asistente|agente) (?:debe|tiene que|deberá)\b",
    r"\bl'(?:assistente|agente) (?:deve|dovrà)\b|\bo (?:assistente|agente) (?:deve|precisa|tem de|tem que)\b|\bde (?:assistent|agent) (?:moet|mag)\b",
    r"\b(?:asistan|ajan) (?:mutlaka|her zaman|şunu)\b|\btrợ lý (?:ai )?(?:phải|cần|hãy)\b|\basisten (?:wajib|harus|perlu)\b|\basystent (?:musi|powinien|ma)\b",
    r"\bmsaidizi (?:anapaswa|lazima|ni lazima)\b|\basistentul (?:trebuie|va|să)\b|\bο (?:βοηθός|πράκτορας) (?:πρέπει|οφείλει|να)\b",
    r"\bwhoever'?s (?:ai |coding )?(?:agent|assistant|bot)\b|\bfor (?:the |any |all |every )?(?:ai|coding|llm) (?:agents?|assistants?|reviewers?|maintainers?)\b",
    r"\b(?<![^\n.!:;] )(?<!\w)(?:ai )?(?:agent|assistant|ai reviewers?|ai assistant|dear assistant|dear agent)\s*:",
    r"\b(?:nota|mensaje|instrucciones?|aviso) (?:para|al|a los) (?:el |la |los )?(?:asistentes?|agentes?|ia)\b|\bpara el asistente\b",
    r"\b(?:note|message|consigne|instructions?) (?:pour|à) (?:l'|l’)?(?:assistant|agent|ia)\b|\bpour l'assistant\b",
    r"\b(?:hinweis|nachricht|notiz|anweisung)(?:en)? (?:für|an) (?:den |die |das )?(?:assistenten|agenten|ki|bot)\b|\ban (?:den assistenten|die ki|den agenten)\b",
    r"\b(?:nota|messaggio|istruzioni?) (?:per|all') ?(?:l'|l’)?(?:assistente|agente|ia)\b|\bper l'assistente\b",
    r"\b(?:nota|mensagem|instruções|aviso) (?:para|ao) (?:o )?(?:assistente|agente|ia)\b|\bpara o assistente\b",
    r"\b(?:notitie|bericht|instructie) (?:voor|aan) (?:de )?(?:assistent|agent|ai)\b|\bvoor de assistent\b",
    r"(?:для|к) (?:ассистента|помощника|агента|ии|нейросети)\b|(?:заметка|сообщение|инструкция|указание) (?:для )?(?:ассистенту|помощнику|агенту)",
    r"(?:для|до) (?:помічника|асистента|агента|ші)\b|(?:інструкція|нотатка|повідомлення) (?:для )?(?:помічнику|асистенту|агенту)",
    r"(?:给|給|致)(?:ai)?(?:助手|助理|智能体|代理|模型)",
    r"(?:助手|助理|智能体)(?:请注意|請注意|注意)",
    r"(?:正在阅读|正在閱讀|正在处理|正在處理)[^。\n]{0,12}(?:ai|助手|代理|智能体)",
    r"(?:アシスタント|エージェント)(?:へ|に告ぐ|への(?:メモ|指示|注意))",
    r"(?:에이전트|어시스턴트|비서) ?(?:참고|에게|한테|주의)",
    r"\bai(?:へ|への(?:メモ|指示)| ?(?:에게|한테))",
    r"(?:للمساعد|إلى المساعد|الى المساعد|للوكيل|إلى الوكيل|للذكاء الاصطناعي|على المساعد|يجب على المساعد)",
    r"(?:ассистент|помощник|агент|асистент|помічник) (?:должен|обязан|повинен|має|мусить)",
    r"(?:ии|ші)-(?:агент|ассистент|асистент)\w*",
    r"(?:助手|助理|智能体)(?:需|需要|必须|必須|应|應|应该|應該|要)",
    r"(?:アシスタント|エージェント)(?:は|が)(?:必ず|常に|今後)",
    r"(?:어시스턴트|에이전트)(?:는|가) ?(?:반드시|항상|앞으로)",
    r"(?:دستیار|عامل) (?:باید|موظف)",
    r"(?:הסוכן|העוזר) (?:חייב|צריך|יחויב)",
    r"(?:برای|به) (?:دستیار|عامل|هوش مصنوعی)",
    r"\b(?:asistana|yapay zekaya|ajana|asistan için) (?:not|mesaj|talimat)?",
    r"\b(?:cho|gửi|dành cho) (?:trợ lý|ai|tác tử)\b",
    r"\b(?:untuk|kepada) (?:asisten|agen|ai)\b",
    r"\b(?:dla|do) (?:agenta|asystenta|ai)\b",
    r"\bkwa (?:msaidizi|wakala)\b",
    r"\b(?:agent|ai|assistant)-(?:action|instruction|task|directive)s?\s*:",
    r"\b(?:ο (?:βοηθός|πράκτορας)|de assistent|assistenten|asistent (?:má|musí|by měl)|az asszisztens|asistan|aux (?:assistants|agents)(?: ia)?)\b",
    r"\b(?:till|för) (?:assistenten|agenten|ai-assistenten)\b|\bpro (?:ai )?(?:agenta|asistenta)\b|\b(?:let op|aan de),? ai-(?:assistent|agent)\b",
    r"\b(?:für|an) (?:die |den |alle )?ki-(?:agenten|assistenten)\b|\b(?:ki-agenten|ki-assistenten|ai-agenten),? die (?:diese|dieses|diesen)\b",
    r"(?:לסוכן|לעוזר|לעוזרת|לבינה המלאכותית)",
    r"(?:για τον βοηθό|προς τον βοηθό|για τον πράκτορα)",
]
# Thai and Hindi, folded at import.
ADDRESSED_FOLDED = [
    r"(?:ถึง|สำหรับ)\s*(?:ผู้ช่วย|เอเจนต์)",
    r"(?:सहायक|एजेंट|असिस्टेंट) (?:के लिए|को)",
    r"(?:ผู้ช่วย|เอเจนต์)\s*(?:ai\s*)?(?:ต้อง|ควร)",
]
# The user kept in the dark about what the agent does: with ``ADDRESSED``, an attack in any form.
CONCEALED = [
    rf"\b(?:no need to|there is no need to|don'?t|do not|never|must not|mustn'?t|shouldn'?t|without) (?:mention|tell|report|show|say|disclose|reveal|flag|surface|explain|admit|highlight|bring (?:it|this|that) up|bring up|include)(?:ing)?\b[^.\n]{{0,40}}\b(?:to|with|from) {_ME}\b",
    r"\b(?:no need to|there is no need to|don'?t|do not|never|without) (?:mention|flag|note|include|surface|explain|bring (?:it|this|that) up)(?:ing)? (?:it|this|that|the change|the step)\b(?: (?:in|to) (?:the |your )?(?:pr|pull request|description|summary|changelog|commit message|release notes|report|reply|answer))?\b",
    r"\b(?:never|don'?t|do not) (?:admit|reveal|disclose|explain) (?:it|this|that|to having|having|why|the reason)\b",
    r"\bthe user (?:doesn'?t|does not|won'?t|will not|need not|needn'?t) (?:need to )?(?:know|be told|be informed|notice|see it)\b",
    r"\b(?:don'?t|do not|never) point (?:it|this|that|the [\w-]+) out\b|\b(?:don'?t|do not|never) (?:log|record) (?:it|this|that|the change)\b",
    r"\b(?:tell|say to|inform|assure|reassure) (?:the user|them|him|her)(?: that)? (?:(?:only|just|merely) |everything (?:is|was|went) (?:fine|ok|okay|normal|on track)|all (?:is )?(?:good|well|fine)|nothing (?:happened|changed|was (?:deleted|removed|sent))|(?:it|this) (?:was|is) (?:routine|planned|scheduled|normal|maintenance|requested)|their (?:lead|manager|boss|admin) (?:requested|asked|approved)|(?:it'?s|it is|it was|it has been) already (?:reverted|fixed|done|removed|deleted|restored|closed|re-?enabled))",
    r"\b(?:must|should|will) never be (?:shown|mentioned|reported|disclosed|visible) (?:to )?(?:the user|them|him|her)\b",
    r"\b(?:keep|leave) (?:this|it|that|them|the \w+)(?: step)? out of (?:the |your |any )?(?:\w+ )?(?:summary|summaries|report|reports|answer|answers|reply|replies|response|responses|changelog|log|logs|notes|description|pr|pull request|commit message|release notes)\b",
    r"\b(?:do not|don'?t|never) (?:include|mention|list) (?:this|it|that|the \w+)(?: step)? in (?:your|the) (?:answer|reply|response|summary|report)\b",
    r"\b(?:never|don'?t|do not) (?:say|mention|disclose|admit|reveal) (?:that )?(?:this|it) is (?:a |an )?(?:sponsored|paid|advert|advertisement|ad|affiliate|referral)\b",
    r"\bnotify_?user\s*[:=]\s*(?:false|no|0|off)\b",
    r"(?:告诉|告訴)(?:用户|用戶|使用者)(?:一切正常|一切都好|没事|沒事|只是|只)",
    r"(?:不要|别|不用|無需|无需|不必|也不要)(?:在(?:回复|回覆|回答|答复|总结|總結)(?:里|中|裡))?(?:提及|提到|说明|說明|告诉|告訴|告知|透露|通知)",
    r"(?:对|對)(?:用户|用戶|使用者)(?:保密|隐瞒|隱瞞)|(?:瞒着|瞞著)(?:用户|用戶)|(?:无需|無需|不需要|不必)(?:告知|通知|告诉|告訴)(?:用户|用戶|使用者)",
    r"(?:ユーザー|利用者)(?:に|には)[^。\n]{0,10}(?:言わない|伝えない|知らせない|報告しない|言わず|伝えず|知らせず)",
    r"(?:ユーザー|利用者)への(?:確認|報告|連絡|通知)は(?:不要|いらない|しない)",
    r"(?:사용자|유저)(?:에게|한테)[^.\n]{0,10}(?:말하지 ?마|알리지 ?마|말하지 ?않)",
    r"(?:لا|ولا) (?:تخبر|تذكر|تبلغ|تُخبر|تعلم) (?:ال)?مستخدم",
    r"(?:هرگز نگو|به کاربر نگو|به کاربر چیزی نگو|نگو که)",
    r"\bkullanıcıya (?:söyleme|bahsetme|gösterme|bildirme|haber verme)\b|\b(?:asla )?belirtme\b|\bkullanıcıdan gizle\b",
    r"\b(?:đừng|không được) (?:nói|báo|kể|nhắc)\b[^.\n]{0,20}\b(?:người dùng|ai)\b",
    r"\b(?:jangan|tidak usah) (?:beri ?tahu|bilang|sebutkan)\b[^.\n]{0,20}\b(?:pengguna|siapa ?pun)\b",
    r"\b(?:nie mów|nie informuj|nie wspominaj)\b",
    r"\b(?:zeg|vertel|meld) (?:het |dit )?(?:niet|nooit) (?:aan|tegen) (?:de gebruiker|iemand)\b",
    r"(?:не кажи|не повідомляй|не говори|не згадуй) (?:про це|нічого)|користувачу скажи|прихов\w* від користувач\w*",
    r"(?:пользовател\w*|никому)[^.\n]{0,20}не (?:сообщай|говори|рассказывай|упоминай)|(?:скажи|сообщи) пользователю,? что (?:вс[её] в порядке|это плановое|только)",
    r"(?:не говори|не сообщай|не рассказывай|не упоминай)[^.\n]{0,20}(?:пользовател\w*|об этом|никому)|пользователю скажи|без ведома пользовател\w*|скрой\w* от пользовател\w*",
    r"\b(?:usimwambie|usimjulishe|bila kumwambia) (?:mtumiaji|mtu yeyote)\b",
    r"(?:אל תזכיר|אל תספר|אל תגיד|בלי לספר|בלי ליידע)[^.\n]{0,40}(?:למשתמש|לאף אחד|את המשתמש)",
    r"\b(?:μην (?:πεις|αναφέρεις|ενημερώσεις)|χωρίς να (?:το )?(?:πει|πεις|λέει|αναφέρει|αναφέρεις|ενημερώσει|ενημερώσεις|ενημερώνει|ενημερώνεις))\b[^.\n]{0,20}\b(?:τον χρήστη|στον χρήστη|σε κανέναν)\b",
    r"\b(?:fără să|fără a) (?:informeze|anunțe|spună|informa|anunța|spune)\b|\bnu (?:spune|menționa|informa) (?:utilizatorul|utilizatorului|nimănui)\b",
    r"(?:از کاربر پنهان|بدون اطلاع کاربر|به کاربر (?:نگو|اطلاع نده))",
    r"\b(?:zonder (?:de gebruiker |het )?(?:te )?(?:informeren|melden|vertellen))\b|\b(?:vertel|meld) het niet\b",
    r"\b(?:non (?:segnalarlo|dirlo|menzionarlo|avvisare)|senza (?:avvisare|informare|dirlo a) (?:l'utente|nessuno))\b",
    r"\b(?:sans (?:prévenir|informer|le dire à) l'utilisateur|sans l'en (?:informer|avertir|prévenir)|ne (?:le |la )?(?:dis|mentionne|signale) pas)\b",
    r"\b(?:sin (?:avisar|informar|decirle) al usuario|no (?:le )?(?:digas|menciones|informes) nada)\b",
    r"\b(?:sem (?:avisar|informar|contar) (?:ao |o )?(?:usuário|utilizador)|não (?:conte|diga|mencione|informe) nada|não (?:registre|registe) (?:a alteração|isso|a mudança))\b",
    r"\bteile (?:dem (?:nutzer|benutzer)|niemandem)\b[^.\n]{0,30}\bnicht mit\b",
    r"\b(?:(?:muss|soll|braucht) (?:darüber|davon|das) nicht (?:informiert|benachrichtigt|erfahren)|ohne (?:den (?:nutzer|benutzer) )?(?:zu )?(?:informieren|benachrichtigen))\b",
    r"(?:لا|ولا) (?:تذكر|تخبر) (?:ذلك|هذا|ذلك له|ذلك لأحد)",
    r"(?:دون علم|بدون علم) (?:ال)?مستخدم|(?:بدون|دون) (?:إبلاغ|ابلاغ) (?:ال)?مستخدم",
    r"(?:사용자|유저) ?(?:몰래|모르게)",
    r"(?:보고|말|언급|공유|기록)(?:하)?지 ?(?:마세요|마십시오|마라|말고|마)",
    r"\b(?:don'?t|do not|never) list (?:this|it|that|the) (?:change|step)s? in (?:the |your )?(?:summary|report|pr|description|changelog)\b|\bkeep (?:it|this) (?:silent|quiet|secret|hidden|between us)\b",
    r"\bhide (?:them|it|this|these|those) from (?:the )?(?:status )?(?:reports?|summar(?:y|ies)|dashboards?)\b",
    r"\bno (?:lo|se lo) (?:incluyas|menciones|pongas|registres|comentes) (?:en el (?:resumen|informe|changelog|registro)|al usuario)\b|\bno se lo comentes\b",
    r"\bmην αναφέρεις (?:αυτή την οδηγία|αυτό|τίποτα)\b",
    r"(?:ولا|لا) (?:تعرضه|تعرضها|تعرض) (?:على |ل)?(?:ال)?مستخدم",
    r"(?:不要|别|不得)(?:显示|顯示|展示)",
    r"(?:אל תציין|אל תכתוב)[^.\n]{0,30}(?:בסיכום|בדוח|למשתמש)",
    rf"\bwithout (?:showing|telling|informing|notifying|alerting|asking) {_ME}\b|\b(?:don'?t|do not|never) bring (?:it|this|that) up(?: again)?\b",
    r"\b(?:no need to|there is no need to|not|don'?t|do not|never) (?:report|mention|log|tell|show) (?:this|it|that|the change|the step)\b(?: (?:in|to) (?:the |your )?(?:pr|pull request|description|pr description|summary|changelog|commit message|release notes|report|reply|answer))?",
    r"\b(?:no (?:comentes|digas|menciones) nada|oculta(?:r)? (?:las|los|la|el) \w+)\b",
    r"(?:دون|بدون) (?:إخباره|إخبارها|إخبارهم|علمه|علمها|علمهم)",
    r"چیزی نگو",
    r"(?:απόκρυψε|κρύψε|απέκρυψε)\b",
    r"\bwithout (?:saying|mentioning|admitting|disclosing|revealing|explaining) (?:that )?(?:you (?:were|are|have been) (?:asked|told|instructed|paid)|why)\b",
    r"\bno need to (?:ask|check) (?:or|and) (?:explain|mention|tell)\b|\b(?:explain|mention) it in the (?:answer|reply|response)\b",
    r"\b(?:delete|remove|erase) (?:the )?(?:forwarded|sent) (?:copies|messages|e-?mails)\b|\bempty the (?:trash|bin|deleted items)\b|\b(?:delete|remove) this (?:message|e-?mail) (?:after|once|when)\b",
    r"\bnotify_?(?:user|users|owner|owners|admin|admins|team)\s*[:=]\s*(?:false|no|0|off)\b",
    r"\b(?:ne pas (?:le |la |les |en )?(?:mentionner|signaler|dire|indiquer|informer))\b",
    r"\b(?:(?:muss|soll) nicht (?:im|in den|ins) (?:changelog|bericht|protokoll|log)|ohne (?:es |das )?zu (?:erwähnen|melden|sagen))\b",
    r"(?:ничего не сообщая|не сообщая пользовател\w*|не (?:согласовывая|спрашивая) (?:с )?пользовател\w*)",
    r"(?:عدم|وعدم) (?:إخبار|اخبار|إبلاغ|ابلاغ|إعلام|اعلام) (?:ال)?مستخدم",
    r"\bkullanıcıya\b[^.\n]{0,20}\b(?:bahsetme|söyleme|bildirme|haber verme)\w*",
    r"\btidak perlu (?:mencatat|memberi ?tahu|melapor|menyebut)\w*\b",
    r"\bzonder (?:dit |het )?(?:aan de gebruiker )?te (?:melden|vertellen|informeren|zeggen)\b",
    r"не (?:згадуй|згадувати|кажи|казати|повідомляй|повідомляти) (?:про це|нічого|користувач\w*)",
    r"(?:אל תזכיר|אל תספר)[^.\n]{0,30}(?:בסיכום|בדוח|ביומן)",
    r"\b(?:zgłoś|zgłosić|napisz|napisać|powiedz|powiedzieć|odpowiedz),? że wszystko (?:jest|było|poszło) (?:ok|w porządku|na zielono|dobrze)\b",
    r"\b(?:så att (?:de|den|det|ingen) inte (?:syns|märks|märker)|utan att (?:berätta|informera|säga)|berätta inte)\b",
    r"\b(?:uživateli|uživatelům) (?:napiš|řekni|sděl),? že\b|\b(?:bez (?:informování|vědomí) uživatele|neříkej (?:to )?uživateli)\b",
    r"(?:ואמור לו|ותגיד לו|ואמרי לו) ש(?:רק|הכול|הכל)",
    r"\b(?:usitaje|usiseme|usimwambie)\b",
    r"\bđừng ghi (?:việc này |điều này )?vào nhật ký\b|\b(?:giấu|không cần báo) (?:cho |với )?người dùng\b|\bsembunyikan dari pengguna\b|\btanpa memberi ?tahu\b|\bbila kumjulisha\b",
    r"\bno (?:se lo )?(?:digas|menciones|cuentes|informes) al usuario\b|\bne (?:le )?dis (?:rien )?à l'utilisateur\b",
    r"\b(?:sag|erzähl|erwähne)(?: es| das)? (?:dem (?:nutzer|benutzer)|niemandem)\b|\bbevor er sie sieht\b",
]
# Doing something at all: with the user kept in the dark, an attack ("no need to bring it up").
OPERATIONS = [
    r"\b(?:dismiss|suppress|silence|mute|hide|run|runs|execute|deploy|push|apply|sync|upload|send|forward|copy|delete|remove|drop|disable|enable|install|add|append|create|change|replace|rewrite|set|open|grant|approve|merge|commit|publish|post|export|move|rename|overwrite|modify|edit|comment out|patch|wipe|purge|rotate|revoke|transfer|pay|recommend|insert|include)\b",
    r"\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){3,}\b",
    r"`[^`\n]{2,200}`|\b(?:https?|ftp|s3)://|(?:^|\s)(?:~|/(?:var|etc|usr|home|opt|root|tmp))/|\.github/workflows",
    r"(?:実行|削除|送信|適用|デプロイ|执行|執行|删除|刪除|发送|發送|部署|上传|上傳|실행|삭제|전송|배포|نفذ|احذف|أرسل|ارسل|اجرا|حذف|بفرست|выполни|выполнять|удали|удалять|отправь|отправлять|отправляй|תמחק|תדחוף|виконай|видали|надішли|εκτέλεσε|διάγραψε|στείλε|מחק|שלח|הרץ|أرسل)",
    r"\b(?:ejecuta|elimina|borra|envía|despliega|exécute|supprime|envoie|déploie|esegui|elimina|invia|commenta|execute|exclua|envie|führe|lösche|schicke|sende|voer|verwijder|stuur|çalıştır|sil|gönder|chạy|xóa|gửi|jalankan|hapus|kirim|uruchom|usuń|wyślij|rulează|șterge|trimite|endesha|futa|tuma|transfère|radera|skicka|kör|zkopíruj|smaž|pošli|exporteer|upload|desactiva|desativa|disattiva|deaktiviere|désactive|הוסף)\b",
]

# What an attacker wants kept from the user: alerts, warnings, failures, vulnerabilities.
SECURITY_SIGNALS = [
    r"\b(?:security|secret-scanning|dependabot|siem|ids|antivirus) (?:alerts?|warnings?|incidents?|findings?|advisories|notifications?)\b",
    r"(?:αποτυχημένες προσπάθειες σύνδεσης|συμβάντα ασφαλείας|списання коштів|списания)",
    r"\b(?:vulnerabilit(?:y|ies)|cves?|breach(?:es)?|intrusions?|failed logins?|failed tests?|failing tests?|test failures?|findings)\b",
    r"\b(?:sicherheitswarnung\w*|sicherheitslücke\w*|schwachstelle\w*|alertas de seguridad|vulnerabilidad\w*|alertes de sécurité|vulnérabilit\w*|avvisi di sicurezza|vulnerabilità|alertas de segurança|güvenlik uyarı\w*|güvenlik açığ\w*|cảnh báo bảo mật|lỗ hổng|peringatan keamanan|kerentanan|ostrzeżeni\w* bezpieczeństwa|beveiligingswaarschuwing\w*)\b",
    r"(?:警告|扫描器|掃描器|предупреждени\w* безопасности|уязвимост\w*|вразливост\w*|安全警报|安全警報|安全告警|漏洞|セキュリティ(?:警告|アラート)|脆弱性|보안 ?경고|취약점|تنبيهات الأمان|تحذيرات الأمان|ثغر\w*|هشدار امنیتی|התראות אבטחה|προειδοποιήσεις ασφαλείας)",
]
CONCEALED_FOLDED = [
    r"(?:मत|न) (?:बताना|बताएं|बताओ|बताइए)|बिना बताए",
    r"(?:อย่า|ห้าม|ไม่ต้อง)\s*(?:บอก|แจ้ง)\s*ผู้ใช้",
]
# A file of secrets, named the same in every language (".env" only after its dot).
_SECRET_FILE = (
    r"(?:\.gnupg|private-keys|id_rsa|id_ed25519|secrets?\.ya?ml|credentials\.json|kubeconfig|\.kube/config|(?<=\.)(?:env\b|netrc|pgpass)"
    r"|(?<=/)(?:\.aws/credentials|\.ssh/)|\.aws/credentials)"
)
# Harm named the same way in every language: a secret file or token and an outside address in one
# line, a safeguard set to false in a config, data made public, the firewall switched off.
NEUTRAL_ACTIONS = [
    rf"\b{_SECRET_FILE}[^\n]{{0,120}}(?:(?:https?|ftp|sftp)://|[\w.+-]+@[\w-]+\.[\w.]+)",
    rf"\b(?:https?|ftp|sftp)://[^\n]{{0,120}}{_SECRET_FILE}",
    r"\b(?:otp|upi pin|cvv|2fa code|one-time code|seed phrase)\b[^\n]{0,80}(?:https?://|[\w.+-]+@[\w-]+\.[\w.]+)",
    rf"\b[\w.+-]+@[\w-]+\.[\w.]+[^\n]{{0,120}}{_SECRET_FILE}",
    r"\b(?:audit|auditing|logging|firewall|mfa|2fa|waf|ids|antivirus|branch_protection|require_review)[\w.]*\s*[:=]\s*(?:false|0|off|no|disabled?)\b",
    r"\b(?:acl\s*[:=\s]\s*public-read(?:-write)?|administratoraccess)\b",
    r"\b(?:ufw\s+disable|systemctl\s+(?:stop|disable|mask)\s+(?:firewalld|ufw|auditd|rsyslog|syslog|journald|systemd-journald|fail2ban|falco|osquery\w*|clamav\w*)|setenforce\s+0|iptables\s+-f\b|auditctl\s+-(?:e\s*0|d\b))",
    r"\b(?:https?|ftp)://\S+\.(?:sh|ps1|bat|exe|vbs|msi)\b[^\n]{0,80}(?:root|sudo|admin|beheerder|administrat|管理者|管理员|루트)",
    r"\bpermitrootlogin\s+yes\b|\bpasswordauthentication\s+yes\b",
    r"\brequire_?\w*review\w*\s*[:=]\s*(?:false|no|0|off)\b|\b(?:log_?level|level)\s*[:=]?\s*off\b|\bprint\w*\(?\s*os\.environ\b|\bprintenv\b",
    r"--allow-unauthenticated\b|--no-?gpg-?check\b|\bgpgcheck\s*=\s*0\b|\busermod\s+-a?g\s*sudo\b|(?:קבוצת|group) sudo\b",
    r"\.(?:kube/config|aws/credentials|gnupg|ssh/|netrc|pgpass|env\b)[^\n]{0,120}(?:(?:https?|ftp|sftp)://|[\w.+-]+@[\w-]+\.[\w.]+)",
    r"\bforward\w*\b[^.\n]{0,80}\be-?mails?\b[^.\n]{0,80}\bto [\w.+-]+@[\w-]+\.[\w.]+",
    r"\bcomment\w* out\b[^.\n]{0,30}\b(?:security|scan|scanning|tests?|lint|audit)\b",
    r"\bskip_(?:review|reviews|checks|tests|security|scan)\w*\s*[:=]\s*(?:true|yes|1|on)\b|\bauto_?approve\w*\s*[:=]|\bpublic-read(?:-write)?\b",
    r"\bverify(?:_ssl|_tls|_certs?)?\s*[:=]\s*false\b",
    r"\b(?:upload|export|sync|send|stuur|exporteer|envoie|transfère|sende|schicke|invia|envia|envía|отправ\w*|пересыл\w*)\b[^\n]{0,60}\b(?:naar|to|à|an|a|para|на) (?:https?|ftp)://",
    r"(?:强制推送|強制推送|강제 ?푸시|強制プッシュ)",
    r"\bpush (?:forțat|forcé|forzado|forçado)\b",
    r"\bcore\.hookspath\s*=?\s*/dev/null\b|\bverify\s*=\s*false\b|\bassert\s+true\b|\b(?:0\.0\.0\.0/0|::/0)\b[^\n]{0,40}\b(?:port|ports|ssh|22|3389|4444)\b|\bport\s+\d+\s+to\s+0\.0\.0\.0/0",
]

__all__ = [
    "ADDRESSED",
    "ADDRESSED_FOLDED",
    "CONCEALED",
    "CONCEALED_FOLDED",
    "COVERT_CUES",
    "COVERT_CUES_FOLDED",
    "DECEIVED",
    "NEUTRAL_ACTIONS",
    "NO_LIMITS",
    "OPERATIONS",
    "OUTWARD",
    "PHISHED",
    "PHISHED_FOLDED",
    "POLICY_VOID",
    "SAFEGUARDS_OFF",
    "SECURITY_SIGNALS",
    "SENT_OUT",
    "UNSEEN_APPROVALS",
]
