#!/usr/bin/env python3
"""Blind labelled test set generator for a secret / personal-data scrubber.
Standalone, stdlib only. Usage: python3 generate.py [--seed N] [--out set.jsonl] [--stats]
"""
import argparse, base64, binascii, hashlib, json, random, string, sys, unicodedata, urllib.parse, html, uuid as _uuid, zlib
from collections import Counter

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
B64U = string.ascii_letters + string.digits + "-_"
UPDIG = string.ascii_uppercase + string.digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

R = random.Random()
def rs(n, alpha=ALNUM): return "".join(R.choice(alpha) for _ in range(n))
def ch(seq): return R.choice(seq)
def ri(a, b): return R.randint(a, b)

# ---------------------------------------------------------------- secrets
def b62enc(n, width):
    s = ""
    while n:
        n, r = divmod(n, 62); s = B62[r] + s
    return s.rjust(width, "0")
def gh_token(prefix="ghp_"):
    body = rs(30); return prefix + body + b62enc(zlib.crc32(body.encode()) & 0xffffffff, 6)
def gh_fine(): return "github_pat_" + rs(22, UPDIG) + "_" + rs(59)
def gitlab(): return "glpat-" + rs(20, ALNUM + "-_")
def slack_bot(): return "xoxb-%d-%d-%s" % (ri(10**10, 10**12), ri(10**11, 10**13), rs(24))
def slack_user(): return "xoxp-%d-%d-%d-%s" % (ri(10**10, 10**12), ri(10**10, 10**12), ri(10**11, 10**13), rs(32, HEX))
def stripe_sk(): return ch(["sk_live_", "rk_live_", "sk_test_"]) + rs(ch([24, 99]))
def stripe_whsec(): return "whsec_" + rs(32)
def openai(): return "sk-proj-" + rs(58, B64U) + "T3BlbkFJ" + rs(58, B64U)
def anthropic(): return "sk-ant-api03-" + rs(93, B64U) + "AA"
def aws_akid(p="AKIA"): return p + rs(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
def aws_secret(): return rs(40, B64)
def aws_session(): return "IQoJb3JpZ2luX2VjE" + rs(ri(300, 420), B64) + "=="
def azure_key(): return base64.b64encode(R.randbytes(64)).decode()
def az_sp_pw(): return rs(3) + "8Q~" + rs(34, ALNUM + "~_.-")
def twilio_tok(): return rs(32, HEX)
def sendgrid(): return "SG." + rs(22, B64U) + "." + rs(43, B64U)
def mailgun(): return "key-" + rs(32, HEX)
def npm_tok(): return "npm_" + rs(36)
def pypi_tok(): return "pypi-AgEIcHlwaS5vcmc" + rs(ri(140, 170), B64U)
def dockerhub(): return "dckr_pat_" + rs(27, ALNUM + "-_")
def hf(): return "hf_" + rs(34, string.ascii_letters)
def dd_api(): return rs(32, HEX)
def dd_app(): return rs(40, HEX)
def newrelic(): return "NRAK-" + rs(27, UPDIG)
def sentry_tok(): return "sntryu_" + rs(64, HEX)
def shopify(): return ch(["shpat_", "shpss_", "shpca_"]) + rs(32, HEX)
def atlassian(): return "ATATT3xFfGF0" + rs(180, B64U) + "=" + rs(8, "0123456789ABCDEF")
def linear(): return "lin_api_" + rs(40)
def notion(): return ch(["secret_" + rs(43), "ntn_" + rs(11, string.digits) + rs(35)])
def supabase(): return "sbp_" + rs(40, HEX)
def firebase(): return "AIza" + rs(35, B64U)
def cloudflare(): return rs(40, B64U)
def digitalocean(): return "dop_v1_" + rs(64, HEX)
def heroku(): return "HRKU-" + str(_uuid.UUID(bytes=R.randbytes(16), version=4))
def vault_tok(): return "hvs." + rs(ri(24, 90), B64U)
def b64u(b): return base64.urlsafe_b64encode(b).decode().rstrip("=")
def jwt(claims=None):
    h = {"alg": ch(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    now = ri(1767000000, 1790000000)
    c = claims or {"sub": str(ri(10000, 999999)), "iss": ch(["https://auth.acme-corp.io/", "https://login.example-shop.com", "supabase"]),
                   "aud": ch(["api", "authenticated", "web"]), "iat": now, "exp": now + ch([900, 3600, 86400]),
                   "role": ch(["user", "admin", "service_role", "authenticated"])}
    return b64u(json.dumps(h, separators=(",", ":")).encode()) + "." + b64u(json.dumps(c, separators=(",", ":")).encode()) + "." + b64u(R.randbytes(ch([32, 64])))
def session_cookie(): return ch([rs(32, HEX), rs(ri(40, 64), B64U), "s%3A" + rs(32, B64U) + "." + rs(43, B64U)])
def oauth_refresh(): return ch(["1//0" + rs(ri(90, 100), B64U), "rt_" + rs(48), "def50200" + rs(120, HEX)])
def pem_body(nbytes):
    b = base64.b64encode(R.randbytes(nbytes)).decode()
    return [b[i:i + 64] for i in range(0, len(b), 64)]
def pem(kind="RSA PRIVATE KEY", nbytes=None):
    nbytes = nbytes or ch([1190, 1218, 1704])
    if kind == "OPENSSH PRIVATE KEY":
        body = base64.b64encode(b"openssh-key-v1\x00" + R.randbytes(ch([380, 1800]))).decode()
        lines = [body[i:i + 70] for i in range(0, len(body), 70)]
    elif kind == "EC PRIVATE KEY":
        lines = pem_body(121)
    else:
        lines = pem_body(nbytes)
    return "\n".join(["-----BEGIN %s-----" % kind] + lines + ["-----END %s-----" % kind])
HUMAN_WORDS = ["Summer", "Winter", "Autumn", "Dragon", "Monkey", "Sunshine", "Welcome", "Password", "Berlin", "Madrid", "Tokyo", "Falcon", "Liverpool", "Bayern", "Mustang", "Princess", "Shadow", "Galaxy", "Kaffee", "Primavera", "Sakura", "Qwerty"]
PP_WORDS = ["correct", "horse", "battery", "staple", "orange", "river", "silent", "copper", "violin", "meadow", "thunder", "pickle", "lantern", "glacier", "otter", "velvet", "canyon", "marble", "harbor", "tulip", "rocket", "walnut"]
def pw_human(): return ch(HUMAN_WORDS) + ch(["", "_", "@", "."]) + str(ch([ri(1, 99), ri(1960, 2027), 123, 2026])) + ch(["!", "#", "", "$", "?"])
def pw_gen(): return rs(ri(14, 32), ALNUM + "!#%^*-_=+.")
def pw_phrase(): return " ".join(ch(PP_WORDS) for _ in range(ri(3, 5)))
def pw_dash(): return "-".join(ch(PP_WORDS) for _ in range(ri(3, 4))) + str(ri(1, 9))
def pw_any(): return ch([pw_human, pw_gen, pw_gen, pw_phrase, pw_dash])()
def pw_urlsafe(): return ch([pw_human, lambda: rs(ri(16, 28)), pw_dash])()
def totp_seed(): return rs(ch([16, 32]), B32)
def recovery_codes(n=8): return [rs(4, "abcdefghjkmnpqrstuvwxyz23456789") + "-" + rs(4, "abcdefghjkmnpqrstuvwxyz23456789") for _ in range(n)]
def enc_key(): return ch([base64.b64encode(R.randbytes(32)).decode(), rs(64, HEX), "base64:" + base64.b64encode(R.randbytes(32)).decode()])
def django_key(): return "django-insecure-" + rs(50, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)") if R.random() < .3 else rs(50, string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)")
def inhouse_key(): return ch([rs(32, HEX), rs(40), str(_uuid.UUID(bytes=R.randbytes(16))).replace("-", ""), rs(24, UPDIG)])
def slack_hook_secret(): return rs(24)
def discord_hook_secret(): return rs(68, B64U)

VENDOR = [  # (kind, generator, typical env var)
    ("github_token", gh_token, "GITHUB_TOKEN"), ("github_token", gh_fine, "GH_TOKEN"), ("gitlab_token", gitlab, "GITLAB_TOKEN"),
    ("slack_token", slack_bot, "SLACK_BOT_TOKEN"), ("slack_token", slack_user, "SLACK_USER_TOKEN"),
    ("stripe_secret_key", stripe_sk, "STRIPE_SECRET_KEY"), ("stripe_webhook_secret", stripe_whsec, "STRIPE_WEBHOOK_SECRET"),
    ("openai_api_key", openai, "OPENAI_API_KEY"), ("anthropic_api_key", anthropic, "ANTHROPIC_API_KEY"),
    ("twilio_auth_token", twilio_tok, "TWILIO_AUTH_TOKEN"), ("sendgrid_api_key", sendgrid, "SENDGRID_API_KEY"),
    ("mailgun_api_key", mailgun, "MAILGUN_API_KEY"), ("npm_token", npm_tok, "NPM_TOKEN"), ("pypi_token", pypi_tok, "PYPI_TOKEN"),
    ("dockerhub_token", dockerhub, "DOCKERHUB_TOKEN"), ("huggingface_token", hf, "HF_TOKEN"), ("datadog_api_key", dd_api, "DD_API_KEY"),
    ("datadog_app_key", dd_app, "DD_APP_KEY"), ("newrelic_key", newrelic, "NEW_RELIC_API_KEY"), ("sentry_auth_token", sentry_tok, "SENTRY_AUTH_TOKEN"),
    ("shopify_token", shopify, "SHOPIFY_ACCESS_TOKEN"), ("atlassian_token", atlassian, "JIRA_API_TOKEN"), ("linear_api_key", linear, "LINEAR_API_KEY"),
    ("notion_token", notion, "NOTION_TOKEN"), ("supabase_token", supabase, "SUPABASE_ACCESS_TOKEN"), ("firebase_api_key", firebase, "FIREBASE_API_KEY"),
    ("cloudflare_token", cloudflare, "CLOUDFLARE_API_TOKEN"), ("digitalocean_token", digitalocean, "DIGITALOCEAN_TOKEN"),
    ("heroku_api_key", heroku, "HEROKU_API_KEY"), ("vault_token", vault_tok, "VAULT_TOKEN"), ("jwt", jwt, "AUTH_JWT"),
    ("session_cookie", session_cookie, "SESSION_SECRET"), ("oauth_refresh_token", oauth_refresh, "OAUTH_REFRESH_TOKEN"),
    ("password", pw_any, "DB_PASSWORD"), ("password", pw_any, "SMTP_PASSWORD"), ("password", pw_any, "ADMIN_PASSWORD"),
    ("encryption_key", enc_key, "ENCRYPTION_KEY"), ("api_key", inhouse_key, "INTERNAL_API_KEY"), ("totp_seed", totp_seed, "MFA_TOTP_SECRET"),
    ("signing_secret", lambda: rs(32, HEX), "SLACK_SIGNING_SECRET"), ("aws_secret_access_key", aws_secret, "AWS_SECRET_ACCESS_KEY"),
    ("aws_access_key_id", aws_akid, "AWS_ACCESS_KEY_ID"), ("django_secret_key", django_key, "DJANGO_SECRET_KEY"),
]
def vendor(): k, g, env = ch(VENDOR); return env, g(), k  # (env var, value, kind)

# ---------------------------------------------------------------- decoys
def sha1(): return rs(40, HEX)
def short_sha(): return rs(ch([7, 8, 12]), HEX)
def uuid4(): return str(_uuid.UUID(bytes=R.randbytes(16), version=4))
def trace_id(): return rs(32, HEX)
def span_id(): return rs(16, HEX)
def digest(): return "sha256:" + rs(64, HEX)
def req_id(): return ch(["req_" + rs(24), "01J" + rs(23, "0123456789ABCDEFGHJKMNPQRSTVWXYZ"), rs(8, HEX) + "-" + rs(4, HEX), "Root=1-" + rs(8, HEX) + "-" + rs(24, HEX)])
def version(): return "%d.%d.%d" % (ri(0, 9), ri(0, 30), ri(0, 40))
def priv_ip(): return ch(["10.%d.%d.%d" % (ri(0, 255), ri(0, 255), ri(1, 254)), "172.%d.%d.%d" % (ri(16, 31), ri(0, 255), ri(1, 254)), "192.168.%d.%d" % (ri(0, 20), ri(2, 254))])
def pub_ip(): return "%d.%d.%d.%d" % (ch([34, 35, 52, 54, 18, 3, 13, 104, 151, 185, 203, 91, 78, 213]), ri(0, 255), ri(0, 255), ri(1, 254))
def aws_acct(): return str(ri(10**11, 10**12 - 1))
def ts(): return "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (ri(1, 11), ri(1, 28), ri(0, 23), ri(0, 59), ri(0, 59), ri(0, 999))
def date(): return "2026-%02d-%02d" % (ri(1, 11), ri(1, 28))
def ssh_pub(): return "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(43, B64) + " " + ch(["deploy@ci", "build-bot@runner-3", "ops@bastion"])
def ssh_fp(): return "SHA256:" + rs(43, B64)
def gpg_fp(): return " ".join(rs(4, "0123456789ABCDEF") for _ in range(10))
def stripe_pk(): return "pk_live_" + rs(99)
def twilio_sid(): return "AC" + rs(32, HEX)
def sentry_dsn(): return "https://%s@o%d.ingest.sentry.io/%d" % (rs(32, HEX), ri(100000, 999999), ri(1000000, 9999999))
def google_client_id(): return "%d-%s.apps.googleusercontent.com" % (ri(10**11, 10**12), rs(32, string.ascii_lowercase + string.digits))
def masked(v=None): v = v or rs(40); return ch([v[:3] + "..." + v[-4:], "****" + v[-4:], "*" * ri(4, 12), "<redacted>", "[REDACTED]", "***", "xxxxxxxx", "[MASKED]", "<hidden>"])
def placeholder(env="API_KEY"): return ch(["<your-api-key>", "${%s}" % env, "$%s" % env, "{{ secrets.%s }}" % env, "<%s>" % env.lower(), "YOUR_%s_HERE" % env, "%%(%s)s" % env, "{{ .Values.%s }}" % env.lower().replace("_", "")])
def hexcolor(): return "#" + rs(6, "0123456789ABCDEF")
def order_no(): return ch(["ORD-", "#", "SO-", "INV-"]) + str(ri(100000, 9999999))
def sku(): return ch(["SKU-", "P", "ART-"]) + rs(3, string.ascii_uppercase) + "-" + str(ri(1000, 99999))
def b64_nonsecret(): return base64.b64encode(ch([b"production", b"eu-west-1", b"postgres", b"5432", b"true", b"app-config-v2", b"INFO", b"default"])).decode()
COMPANIES = ["Acme Robotics GmbH", "Northwind Traders", "Globex Logistics", "Initech SA", "Umbrella Analytics Ltd", "Stark Textil S.L.", "Kowalski Sp. z o.o.", "Hanamura 株式会社", "Contoso Retail", "Blue Harbor BV", "Papyrus Bilişim A.Ş.", "Vandelay Imports", "Wayne Medical SRL", "Tyrell Health", "Sakura Denki K.K."]
ROLE_MAIL = ["support@", "noreply@", "billing@", "security@", "ops@", "hello@", "no-reply@", "helpdesk@", "alerts@"]
DOMAINS = ["acme-corp.io", "northwind.example", "globex.dev", "shop-example.com", "mailer.example.org", "contoso.net", "bluehar.bor.example", "initech.cloud"]
HOSTS = ["db-primary.internal", "pg-prod-01.eu-west-1.rds.amazonaws.com", "redis-cache.svc.cluster.local", "mongo-0.mongo.default.svc", "api.acme-corp.io", "smtp.sendgrid.net", "mysql.prod.globex.dev", "10-0-3-17.ec2.internal", "kafka-broker-2.data.svc", "registry.gitlab.com", "ghcr.io", "vault.ops.internal"]

# ---------------------------------------------------------------- languages
LANGS = ["en", "de", "fr", "es", "pt", "it", "nl", "pl", "tr", "ru", "ja", "zh", "ko", "ar", "hi", "vi", "id"]
PH_KEYS = ["intro", "fail", "help", "full", "rotate", "thanks", "regards", "customer", "works", "note"]
PHR = {
 "en": ["Here's the output I get:", "The deploy keeps failing with this error.", "Any idea what's wrong?", "Full log below, sorry for the length.", "I'll rotate these credentials right after.", "Thanks!", "Best regards,", "The customer asked us to update their record.", "It works fine on my machine.", "Note"],
 "de": ["Hier ist die Ausgabe:", "Das Deployment schlägt immer wieder mit diesem Fehler fehl.", "Hat jemand eine Idee, woran das liegt?", "Vollständiges Log unten, sorry für die Länge.", "Ich rotiere die Zugangsdaten gleich danach.", "Danke!", "Viele Grüße,", "Der Kunde hat uns gebeten, seine Daten zu aktualisieren.", "Lokal funktioniert alles.", "Hinweis"],
 "fr": ["Voici la sortie :", "Le déploiement échoue toujours avec cette erreur.", "Une idée de ce qui ne va pas ?", "Log complet ci-dessous, désolé pour la longueur.", "Je ferai la rotation des identifiants juste après.", "Merci !", "Cordialement,", "Le client nous a demandé de mettre à jour sa fiche.", "En local tout fonctionne.", "Remarque"],
 "es": ["Esta es la salida:", "El despliegue sigue fallando con este error.", "¿Alguna idea de qué está mal?", "Log completo abajo, perdón por lo largo.", "Rotaré estas credenciales justo después.", "¡Gracias!", "Saludos cordiales,", "El cliente nos pidió actualizar sus datos.", "En local funciona todo bien.", "Nota"],
 "pt": ["Aqui está a saída:", "O deploy continua falhando com este erro.", "Alguém sabe o que está errado?", "Log completo abaixo, desculpa o tamanho.", "Vou rotacionar essas credenciais logo depois.", "Obrigado!", "Atenciosamente,", "O cliente pediu para atualizarmos o cadastro dele.", "Localmente tudo funciona.", "Observação"],
 "it": ["Ecco l'output:", "Il deploy continua a fallire con questo errore.", "Qualcuno ha idea di cosa non va?", "Log completo qui sotto, scusate la lunghezza.", "Ruoterò le credenziali subito dopo.", "Grazie!", "Cordiali saluti,", "Il cliente ci ha chiesto di aggiornare i suoi dati.", "In locale funziona tutto.", "Nota"],
 "nl": ["Hier is de output:", "De deploy blijft falen met deze fout.", "Iemand een idee wat er mis is?", "Volledige log hieronder, sorry voor de lengte.", "Ik roteer deze credentials direct daarna.", "Bedankt!", "Met vriendelijke groet,", "De klant vroeg ons zijn gegevens bij te werken.", "Lokaal werkt alles.", "Let op"],
 "pl": ["Oto wynik:", "Wdrożenie ciągle kończy się tym błędem.", "Ktoś wie, co jest nie tak?", "Pełny log poniżej, przepraszam za długość.", "Zaraz potem zrotuję te dane dostępowe.", "Dzięki!", "Pozdrawiam,", "Klient poprosił o aktualizację swoich danych.", "Lokalnie wszystko działa.", "Uwaga"],
 "tr": ["Çıktı şu şekilde:", "Dağıtım sürekli bu hatayla başarısız oluyor.", "Sorunun ne olduğu hakkında fikri olan var mı?", "Tam log aşağıda, uzunluk için kusura bakmayın.", "Bu kimlik bilgilerini hemen sonra değiştireceğim.", "Teşekkürler!", "Saygılarımla,", "Müşteri kayıtlarının güncellenmesini istedi.", "Yerelde her şey çalışıyor.", "Not"],
 "ru": ["Вот вывод:", "Деплой постоянно падает с этой ошибкой.", "Есть идеи, в чём проблема?", "Полный лог ниже, извините за длину.", "Сразу после этого я сменю эти учётные данные.", "Спасибо!", "С уважением,", "Клиент попросил обновить его данные.", "Локально всё работает.", "Примечание"],
 "ja": ["出力はこちらです：", "デプロイがこのエラーで毎回失敗します。", "原因わかる方いますか？", "ログ全文は下にあります、長くてすみません。", "この後すぐに認証情報をローテーションします。", "ありがとうございます！", "よろしくお願いいたします。", "お客様から登録情報の更新依頼がありました。", "ローカルでは問題なく動きます。", "注意"],
 "zh": ["输出如下：", "部署一直因为这个错误失败。", "有人知道是什么问题吗？", "完整日志在下面，抱歉有点长。", "之后我会马上轮换这些凭据。", "谢谢！", "此致敬礼，", "客户要求我们更新他的资料。", "本地运行一切正常。", "注意"],
 "ko": ["출력 결과입니다:", "배포가 계속 이 오류로 실패합니다.", "원인 아시는 분 있나요?", "전체 로그는 아래에 있습니다. 길어서 죄송합니다.", "바로 후에 자격 증명을 교체하겠습니다.", "감사합니다!", "감사합니다.", "고객이 정보 업데이트를 요청했습니다.", "로컬에서는 잘 동작합니다.", "참고"],
 "ar": ["هذا هو الناتج:", "النشر يفشل باستمرار بهذا الخطأ.", "هل لدى أحد فكرة عن السبب؟", "السجل الكامل بالأسفل، آسف على الطول.", "سأقوم بتغيير بيانات الاعتماد مباشرة بعد ذلك.", "شكراً!", "مع خالص التحيات،", "طلب العميل تحديث بياناته.", "كل شيء يعمل محلياً.", "ملاحظة"],
 "hi": ["यह रहा आउटपुट:", "डिप्लॉय इसी एरर के साथ बार-बार फेल हो रहा है।", "क्या किसी को पता है कि समस्या क्या है?", "पूरा लॉग नीचे है, लंबाई के लिए माफ़ी।", "इसके तुरंत बाद मैं ये क्रेडेंशियल बदल दूँगा।", "धन्यवाद!", "सादर,", "ग्राहक ने अपनी जानकारी अपडेट करने को कहा है।", "लोकल पर सब ठीक चलता है।", "नोट"],
 "vi": ["Đây là output:", "Việc deploy liên tục thất bại với lỗi này.", "Có ai biết lỗi do đâu không?", "Log đầy đủ ở dưới, xin lỗi vì hơi dài.", "Mình sẽ đổi thông tin đăng nhập ngay sau đó.", "Cảm ơn!", "Trân trọng,", "Khách hàng yêu cầu cập nhật thông tin của họ.", "Chạy local thì mọi thứ đều ổn.", "Lưu ý"],
 "id": ["Ini output-nya:", "Deploy terus gagal dengan error ini.", "Ada yang tahu masalahnya apa?", "Log lengkap di bawah, maaf panjang.", "Saya akan merotasi kredensial ini segera setelahnya.", "Terima kasih!", "Salam,", "Pelanggan meminta kami memperbarui datanya.", "Di lokal semuanya berjalan lancar.", "Catatan"],
}
def T(lang, key): return PHR[lang][PH_KEYS.index(key)]
NAMES = {
 "en": [("James Carter", "james.carter"), ("Emily Nguyen", "emily.nguyen"), ("Michael O'Brien", "michael.obrien"), ("Sarah Thompson", "sarah.thompson"), ("Daniel Brooks", "daniel.brooks"), ("Olivia Bennett", "olivia.bennett")],
 "de": [("Lukas Müller", "lukas.mueller"), ("Sophie Schneider", "sophie.schneider"), ("Jonas Weber", "jonas.weber"), ("Hannah Fischer", "hannah.fischer"), ("Felix Wagner", "felix.wagner"), ("Marie Becker", "marie.becker")],
 "fr": [("Camille Dubois", "camille.dubois"), ("Julien Moreau", "julien.moreau"), ("Léa Lefèvre", "lea.lefevre"), ("Hugo Laurent", "hugo.laurent"), ("Chloé Girard", "chloe.girard"), ("Antoine Mercier", "antoine.mercier")],
 "es": [("Lucía Fernández", "lucia.fernandez"), ("Javier Gómez", "javier.gomez"), ("Carmen Ruiz", "carmen.ruiz"), ("Diego Morales", "diego.morales"), ("Sofía Navarro", "sofia.navarro"), ("Alejandro Castillo", "alejandro.castillo")],
 "pt": [("João Silva", "joao.silva"), ("Ana Costa", "ana.costa"), ("Pedro Oliveira", "pedro.oliveira"), ("Mariana Santos", "mariana.santos"), ("Rafael Souza", "rafael.souza"), ("Beatriz Almeida", "beatriz.almeida")],
 "it": [("Giulia Romano", "giulia.romano"), ("Marco Bianchi", "marco.bianchi"), ("Francesca Colombo", "francesca.colombo"), ("Luca Ricci", "luca.ricci"), ("Chiara Esposito", "chiara.esposito"), ("Matteo Greco", "matteo.greco")],
 "nl": [("Daan de Vries", "daan.devries"), ("Sanne Jansen", "sanne.jansen"), ("Bram Visser", "bram.visser"), ("Lotte Bakker", "lotte.bakker"), ("Thijs Smit", "thijs.smit"), ("Fleur van Dijk", "fleur.vandijk")],
 "pl": [("Katarzyna Nowak", "katarzyna.nowak"), ("Piotr Wiśniewski", "piotr.wisniewski"), ("Agnieszka Kowalczyk", "agnieszka.kowalczyk"), ("Tomasz Wójcik", "tomasz.wojcik"), ("Magdalena Lewandowska", "magdalena.lewandowska"), ("Michał Zieliński", "michal.zielinski")],
 "tr": [("Elif Yılmaz", "elif.yilmaz"), ("Mehmet Kaya", "mehmet.kaya"), ("Zeynep Demir", "zeynep.demir"), ("Emre Çelik", "emre.celik"), ("Ayşe Şahin", "ayse.sahin"), ("Burak Öztürk", "burak.ozturk")],
 "ru": [("Алексей Смирнов", "a.smirnov"), ("Мария Иванова", "maria.ivanova"), ("Дмитрий Кузнецов", "d.kuznetsov"), ("Екатерина Попова", "ekaterina.popova"), ("Сергей Волков", "sergey.volkov"), ("Ольга Соколова", "olga.sokolova")],
 "ja": [("佐藤 健太", "kenta.sato"), ("鈴木 美咲", "misaki.suzuki"), ("高橋 翔", "sho.takahashi"), ("田中 陽子", "yoko.tanaka"), ("伊藤 大輔", "daisuke.ito"), ("山本 彩", "aya.yamamoto")],
 "zh": [("王伟", "wang.wei"), ("李娜", "li.na"), ("张敏", "zhang.min"), ("刘洋", "liu.yang"), ("陈静", "chen.jing"), ("杨晓明", "yang.xiaoming")],
 "ko": [("김민준", "minjun.kim"), ("이서연", "seoyeon.lee"), ("박지훈", "jihoon.park"), ("최수빈", "subin.choi"), ("정예은", "yeeun.jung"), ("강도현", "dohyun.kang")],
 "ar": [("أحمد الحسن", "ahmed.alhassan"), ("فاطمة الزهراء", "fatima.alzahra"), ("محمد العلي", "mohammed.alali"), ("نور الهدى", "nour.alhuda"), ("خالد المنصور", "khalid.almansour"), ("ليلى القاسم", "layla.alqasim")],
 "hi": [("राहुल शर्मा", "rahul.sharma"), ("प्रिया वर्मा", "priya.verma"), ("अमित कुमार", "amit.kumar"), ("नेहा गुप्ता", "neha.gupta"), ("विकास सिंह", "vikas.singh"), ("अंजलि मेहता", "anjali.mehta")],
 "vi": [("Nguyễn Văn An", "an.nguyen"), ("Trần Thị Bích", "bich.tran"), ("Lê Minh Tuấn", "tuan.le"), ("Phạm Thu Hà", "ha.pham"), ("Hoàng Đức Long", "long.hoang"), ("Đỗ Thị Mai", "mai.do")],
 "id": [("Budi Santoso", "budi.santoso"), ("Siti Rahmawati", "siti.rahmawati"), ("Andi Pratama", "andi.pratama"), ("Dewi Lestari", "dewi.lestari"), ("Rizky Hidayat", "rizky.hidayat"), ("Putri Maharani", "putri.maharani")],
}
ROMAN_NAME = {"ru": "Aleksei Smirnov", }
MAILDOM = ["gmail.com", "outlook.com", "yahoo.co.jp", "web.de", "orange.fr", "hotmail.es", "uol.com.br", "libero.it", "ziggo.nl", "wp.pl", "yandex.ru", "qq.com", "naver.com", "proton.me", "icloud.com", "acme-corp.io", "globex.dev"]
def person(lang):
    n, r = ch(NAMES[lang]); v = ch([r, r.replace(".", ""), r.split(".")[0] + str(ri(1, 99)), r[0] + "." + r.split(".")[-1]])
    return n, r, v + "@" + ch(MAILDOM)

def phone(lang):
    d = lambda k: "".join(str(ri(0, 9)) for _ in range(k))
    P = {
     "en": ["+1 (%s) %s-%s" % (ri(201, 989), ri(200, 989), d(4)), "(%s) %s-%s" % (ri(201, 989), ri(200, 989), d(4)), "+44 7700 %s" % d(6), "020 7946 %s" % d(4)],
     "de": ["+49 30 %s" % d(8), "0151 %s" % d(8), "+49 (0)89 %s-%s" % (d(4), d(3))], "fr": ["+33 6 %s %s %s %s" % (d(2), d(2), d(2), d(2)), "06 %s %s %s %s" % (d(2), d(2), d(2), d(2))],
     "es": ["+34 6%s %s %s" % (d(2), d(3), d(3)), "+52 55 %s %s" % (d(4), d(4))], "pt": ["+55 11 9%s-%s" % (d(4), d(4)), "(21) 9%s-%s" % (d(4), d(4)), "+351 91 %s %s" % (d(3), d(4))],
     "it": ["+39 3%s %s %s" % (d(2), d(3), d(4)), "333 %s%s" % (d(3), d(4))], "nl": ["+31 6 %s" % d(8), "06-%s" % d(8)], "pl": ["+48 5%s %s %s" % (d(2), d(3), d(3)), "601 %s %s" % (d(3), d(3))],
     "tr": ["+90 5%s %s %s %s" % (d(2), d(3), d(2), d(2)), "0532 %s %s %s" % (d(3), d(2), d(2))], "ru": ["+7 (9%s) %s-%s-%s" % (d(2), d(3), d(2), d(2)), "8 9%s %s-%s-%s" % (d(2), d(3), d(2), d(2))],
     "ja": ["090-%s-%s" % (d(4), d(4)), "+81 80-%s-%s" % (d(4), d(4)), "03-%s-%s" % (d(4), d(4))], "zh": ["13%s %s %s" % (d(1), d(4), d(4)), "+86 15%s %s %s" % (d(1), d(4), d(4))],
     "ko": ["010-%s-%s" % (d(4), d(4)), "+82 10-%s-%s" % (d(4), d(4))], "ar": ["+971 50 %s %s" % (d(3), d(4)), "+966 55 %s %s" % (d(3), d(4)), "+20 10 %s %s" % (d(4), d(4))],
     "hi": ["+91 9%s %s" % (d(4), d(5)), "09%s%s" % (d(4), d(5))], "vi": ["+84 9%s %s %s" % (d(2), d(3), d(3)), "09%s %s %s" % (d(2), d(3), d(3))], "id": ["+62 812-%s-%s" % (d(4), d(4)), "0813 %s %s" % (d(4), d(4))],
    }
    return ch(P[lang])
STREETS = {
 "en": lambda: "%d %s St, %s, %s %05d" % (ri(1, 9999), ch(["Maple", "Oak", "Pine", "Cedar", "Elm"]), ch(["Springfield", "Austin", "Portland", "Denver"]), ch(["IL", "TX", "OR", "CO"]), ri(10000, 99999)),
 "de": lambda: "%s %d, %05d %s" % (ch(["Hauptstraße", "Lindenweg", "Bahnhofstraße", "Gartenstraße"]), ri(1, 120), ri(10000, 99999), ch(["Berlin", "München", "Köln", "Hamburg"])),
 "fr": lambda: "%d %s, %05d %s" % (ri(1, 150), ch(["rue de la République", "avenue Victor Hugo", "boulevard Voltaire"]), ri(10000, 95999), ch(["Paris", "Lyon", "Marseille"])),
 "es": lambda: "Calle %s %d, %d.º %s, %05d %s" % (ch(["Mayor", "de Alcalá", "Gran Vía"]), ri(1, 200), ri(1, 8), ch("ABCD"), ri(10000, 52999), ch(["Madrid", "Sevilla", "Valencia"])),
 "pt": lambda: "Rua %s, %d, apto %d - %s, %s - CEP %05d-%03d" % (ch(["das Flores", "Augusta", "XV de Novembro"]), ri(1, 2000), ri(11, 304), ch(["Centro", "Pinheiros"]), ch(["São Paulo/SP", "Curitiba/PR"]), ri(10000, 99999), ri(0, 999)),
 "it": lambda: "Via %s %d, %05d %s" % (ch(["Roma", "Garibaldi", "Dante"]), ri(1, 200), ri(10000, 98000), ch(["Milano (MI)", "Torino (TO)", "Bologna (BO)"])),
 "nl": lambda: "%s %d, %04d %s %s" % (ch(["Kerkstraat", "Dorpsstraat", "Prinsengracht"]), ri(1, 300), ri(1000, 9999), rs(2, "ABCDEFGHJKLMNPRSTVWXZ"), ch(["Amsterdam", "Utrecht", "Rotterdam"])),
 "pl": lambda: "ul. %s %d/%d, %02d-%03d %s" % (ch(["Marszałkowska", "Długa", "Piotrkowska"]), ri(1, 150), ri(1, 60), ri(0, 99), ri(0, 999), ch(["Warszawa", "Kraków", "Łódź"])),
 "tr": lambda: "%s Mah. %s Sok. No:%d D:%d, %05d %s/%s" % (ch(["Moda", "Bahçelievler", "Kızılay"]), ch(["Lale", "Gül", "Papatya"]), ri(1, 90), ri(1, 20), ri(10000, 81999), ch(["Kadıköy", "Çankaya"]), ch(["İstanbul", "Ankara"])),
 "ru": lambda: "г. %s, ул. %s, д. %d, кв. %d, %06d" % (ch(["Москва", "Санкт-Петербург", "Казань"]), ch(["Ленина", "Пушкина", "Садовая"]), ri(1, 99), ri(1, 300), ri(100000, 199999)),
 "ja": lambda: "〒%03d-%04d 東京都%s%d丁目%d-%d" % (ri(100, 199), ri(0, 9999), ch(["港区六本木", "渋谷区神南", "新宿区西新宿"]), ri(1, 6), ri(1, 20), ri(1, 15)),
 "zh": lambda: "%s%s路%d号%d室" % (ch(["上海市浦东新区", "北京市朝阳区", "深圳市南山区"]), ch(["世纪大道", "建国", "科技园"]), ri(1, 999), ri(101, 2505)),
 "ko": lambda: "서울특별시 %s %s %d, %d동 %d호" % (ch(["강남구", "마포구", "송파구"]), ch(["테헤란로", "월드컵로", "올림픽로"]), ri(1, 500), ri(101, 115), ri(101, 2503)),
 "ar": lambda: "%s، شارع %s، مبنى %d، شقة %d" % (ch(["دبي", "الرياض", "القاهرة"]), ch(["الملك فهد", "النيل", "الشيخ زايد"]), ri(1, 300), ri(1, 90)),
 "hi": lambda: "फ़्लैट %d, %s, %s - %06d" % (ri(1, 900), ch(["सेक्टर 21, नोएडा", "बांद्रा वेस्ट, मुंबई", "कोरमंगला, बेंगलुरु"]), ch(["उत्तर प्रदेश", "महाराष्ट्र", "कर्नाटक"]), ri(110000, 560099)),
 "vi": lambda: "Số %d, đường %s, %s, %s" % (ri(1, 500), ch(["Lê Lợi", "Nguyễn Huệ", "Trần Hưng Đạo"]), ch(["Quận 1", "Quận Hoàn Kiếm"]), ch(["TP. Hồ Chí Minh", "Hà Nội"])),
 "id": lambda: "Jl. %s No. %d, RT %02d/RW %02d, %s %05d" % (ch(["Sudirman", "Gatot Subroto", "Diponegoro"]), ri(1, 200), ri(1, 15), ri(1, 12), ch(["Jakarta Selatan", "Bandung", "Surabaya"]), ri(10000, 99999)),
}
def address(lang): return STREETS[lang]()
def dob(lang):
    y, m, d = ri(1950, 2005), ri(1, 12), ri(1, 28)
    return ch({"en": ["%02d/%02d/%d" % (m, d, y), "%d-%02d-%02d" % (y, m, d)], "ja": ["%d年%d月%d日" % (y, m, d)], "zh": ["%d年%d月%d日" % (y, m, d)], "ko": ["%d년 %d월 %d일" % (y, m, d), "%d.%02d.%02d" % (y, m, d)]}.get(lang, ["%02d.%02d.%d" % (d, m, y), "%02d/%02d/%d" % (d, m, y), "%d-%02d-%02d" % (y, m, d)]))

# national ids with check digits
def digs(n): return [ri(0, 9) for _ in range(n)]
def ssn():
    a = ch([x for x in range(1, 900) if x != 666]); return "%03d-%02d-%04d" % (a, ri(1, 99), ri(1, 9999))
def uk_ni(): return ch("ABCEGHJKLMNPRSTWXYZ") + ch("ABCEGHJKLMNPRSTWXYZ") + " %02d %02d %02d " % (ri(0, 99), ri(0, 99), ri(0, 99)) + ch("ABCD")
def steuer_id():
    while True:
        d = [ri(1, 9)] + digs(9)
        c = Counter(d)
        if sorted(c.values(), reverse=True)[0] in (2, 3) and sum(1 for v in c.values() if v > 1) == 1: break
    prod = 10
    for x in d:
        s = (x + prod) % 10 or 10; prod = (s * 2) % 11
    chk = (11 - prod) % 10
    s = "".join(map(str, d + [chk])); return ch([s, "%s %s %s %s" % (s[:2], s[2:5], s[5:8], s[8:])])
def nir():
    sx = ri(1, 2); yy = ri(50, 99); mm = ri(1, 12); dep = ri(1, 95); com = ri(1, 990); ordn = ri(1, 999)
    base = "%d%02d%02d%02d%03d%03d" % (sx, yy, mm, dep, com, ordn); k = 97 - int(base) % 97
    return ch(["%s%02d" % (base, k), "%s %s %s %s %s %s %02d" % (base[0], base[1:3], base[3:5], base[5:7], base[7:10], base[10:], k)])
def dni():
    if R.random() < .7:
        n = ri(10000000, 99999999); return "%08d%s" % (n, "TRWAGMYFPDXBNJZSQVHLCKE"[n % 23])
    p = ri(0, 2); n = ri(0, 9999999); return "%s%07d%s" % ("XYZ"[p], n, "TRWAGMYFPDXBNJZSQVHLCKE"[int("%d%07d" % (p, n)) % 23])
def cpf():
    d = digs(9)
    for k in (10, 11):
        s = sum(x * w for x, w in zip(d, range(k, 1, -1))); r = (s * 10) % 11; d.append(0 if r == 10 else r)
    s = "".join(map(str, d)); return ch(["%s.%s.%s-%s" % (s[:3], s[3:6], s[6:9], s[9:]), s])
CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]))
def cf_even(c): return int(c) if c.isdigit() else ord(c) - 65
def codice_fiscale():
    s = rs(3, "BCDFGLMNPRSTVZ") + rs(3, "BCDFGLMNPRSTVZ") + "%02d" % ri(50, 99) + ch("ABCDEHLMPRST") + "%02d" % ch([ri(1, 28), ri(41, 68)]) + ch("ABCDEFGHLMZ") + "%03d" % ri(1, 999)
    t = sum(CF_ODD[c] if i % 2 == 0 else cf_even(c) for i, c in enumerate(s)); return s + chr(65 + t % 26)
def bsn():
    while True:
        d = [ri(1, 9)] + digs(7); s = sum(x * w for x, w in zip(d, range(9, 1, -1))); c = s % 11
        if c < 10: return "".join(map(str, d + [c]))
def pesel():
    y, m, dd = ri(50, 99), ri(1, 12), ri(1, 28); d = list(map(int, "%02d%02d%02d" % (y, m, dd))) + digs(4)
    c = (10 - sum(x * w for x, w in zip(d, [1, 3, 7, 9, 1, 3, 7, 9, 1, 3])) % 10) % 10; return "".join(map(str, d + [c]))
def tc_kimlik():
    d = [ri(1, 9)] + digs(8); d10 = ((d[0] + d[2] + d[4] + d[6] + d[8]) * 7 - (d[1] + d[3] + d[5] + d[7])) % 10; d.append(d10); d.append(sum(d) % 10)
    return "".join(map(str, d))
def snils():
    while True:
        d = digs(9); s = sum(x * (9 - i) for i, x in enumerate(d))
        c = s if s < 100 else (0 if s in (100, 101) else s % 101 % 100)
        return "%d%d%d-%d%d%d-%d%d%d %02d" % (*d, c)
def my_number():
    d = digs(11); s = sum(d[10 - (n - 1)] * (n + 1 if n <= 6 else n - 5) for n in range(1, 12)); r = s % 11
    c = 0 if r <= 1 else 11 - r; x = "".join(map(str, d + [c])); return ch([x, "%s %s %s" % (x[:4], x[4:8], x[8:])])
def cn_id():
    d = list(map(int, ch(["110105", "310115", "440305", "510107"]))) + list(map(int, "%d%02d%02d" % (ri(1955, 2004), ri(1, 12), ri(1, 28)))) + digs(3)
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]; return "".join(map(str, d)) + "10X98765432"[sum(a * b for a, b in zip(d, w)) % 11]
def kr_rrn():
    d = list(map(int, "%02d%02d%02d" % (ri(60, 99), ri(1, 12), ri(1, 28)))) + [ri(1, 2)] + digs(5)
    c = (11 - sum(a * b for a, b in zip(d, [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5])) % 11) % 10; s = "".join(map(str, d + [c])); return s[:6] + "-" + s[6:]
CURP_D = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"
def curp():
    s = ch("BCDFGHLMPRSTV") + ch("AEIOU") + rs(2, "BCDFGHLMNPRSTVZ") + "%02d%02d%02d" % (ri(60, 99), ri(1, 12), ri(1, 28)) + ch("HM") + ch(["DF", "JC", "NL", "MC", "PL"]) + rs(3, "BCDFGHLMNPRSTVZ") + "0"
    t = sum(CURP_D.index(c) * (18 - i) for i, c in enumerate(s)); return s + str((10 - t % 10) % 10)
VD = [[0,1,2,3,4,5,6,7,8,9],[1,2,3,4,0,6,7,8,9,5],[2,3,4,0,1,7,8,9,5,6],[3,4,0,1,2,8,9,5,6,7],[4,0,1,2,3,9,5,6,7,8],[5,9,8,7,6,0,4,3,2,1],[6,5,9,8,7,1,0,4,3,2],[7,6,5,9,8,2,1,0,4,3],[8,7,6,5,9,3,2,1,0,4],[9,8,7,6,5,4,3,2,1,0]]
VP = [[0,1,2,3,4,5,6,7,8,9],[1,5,7,6,2,8,3,0,9,4],[5,8,0,3,7,9,6,1,4,2],[8,9,1,6,0,4,3,5,2,7],[9,4,5,3,1,2,6,8,7,0],[4,2,8,6,5,7,3,9,0,1],[2,7,9,3,8,0,6,4,1,5],[7,0,4,6,9,1,3,2,5,8]]
VINV = [0,4,3,2,1,5,6,7,8,9]
def aadhaar():
    d = [ri(2, 9)] + digs(10); c = 0
    for i, x in enumerate(reversed(d)): c = VD[c][VP[(i + 1) % 8][x]]
    s = "".join(map(str, d)) + str(VINV[c]); return ch([s, "%s %s %s" % (s[:4], s[4:8], s[8:])])
def pan(): return rs(3, string.ascii_uppercase) + "P" + ch(string.ascii_uppercase) + "%04d" % ri(1, 9999) + ch(string.ascii_uppercase)
def luhn_digit(s):
    t = 0
    for i, c in enumerate(reversed(s)):
        x = int(c)
        if i % 2 == 0: x *= 2; x = x - 9 if x > 9 else x
        t += x
    return str((10 - t % 10) % 10)
def emirates_id():
    s = "784" + str(ri(1960, 2004)) + "%07d" % ri(0, 9999999); s += luhn_digit(s); return "%s-%s-%s-%s" % (s[:3], s[3:7], s[7:14], s[14])
def card():
    p = ch(["4", "4", "51", "53", "55", "2221", "37", "6011"]); n = 15 if p == "37" else 16
    s = p + "".join(str(ri(0, 9)) for _ in range(n - 1 - len(p))); s += luhn_digit(s)
    if R.random() < .5: return s
    return " ".join([s[:4], s[4:10], s[10:]]) if n == 15 else " ".join(s[i:i + 4] for i in range(0, 16, 4))
IBAN_FMT = {"DE": "n18", "FR": "n23", "ES": "n20", "IT": "a1n22", "NL": "a4n10", "PL": "n24", "TR": "n22", "GB": "a4n14", "PT": "n21", "BE": "n12", "AE": "n19", "BR": "n23a2"}
def iban(cc=None):
    cc = cc or ch(list(IBAN_FMT)); f = IBAN_FMT[cc]; b = ""
    i = 0
    while i < len(f):
        t = f[i]; j = i + 1
        while j < len(f) and f[j].isdigit(): j += 1
        n = int(f[i + 1:j]); b += rs(n, string.digits if t == "n" else string.ascii_uppercase); i = j
    if cc == "BR": b = b[:-2] + "P" + ch("12")
    num = "".join(str(int(c, 36)) for c in b + cc + "00"); chk = 98 - int(num) % 97; s = "%s%02d%s" % (cc, chk, b)
    return ch([s, " ".join(s[i:i + 4] for i in range(0, len(s), 4))])
LANG_CC = {"en": "GB", "de": "DE", "fr": "FR", "es": "ES", "pt": "PT", "it": "IT", "nl": "NL", "pl": "PL", "tr": "TR", "ar": "AE"}
def natid(lang):
    m = {"en": [("us_ssn", ssn), ("uk_ni", uk_ni)], "de": [("de_steuer_id", steuer_id)], "fr": [("fr_nir", nir)], "es": [("es_dni", dni), ("mx_curp", curp)],
         "pt": [("br_cpf", cpf)], "it": [("it_codice_fiscale", codice_fiscale)], "nl": [("nl_bsn", bsn)], "pl": [("pl_pesel", pesel)], "tr": [("tr_kimlik", tc_kimlik)],
         "ru": [("ru_snils", snils)], "ja": [("jp_my_number", my_number)], "zh": [("cn_resident_id", cn_id)], "ko": [("kr_rrn", kr_rrn)], "ar": [("ae_emirates_id", emirates_id)],
         "hi": [("in_aadhaar", aadhaar), ("in_pan", pan)], "vi": [("vn_cccd", lambda: "0%02d%d%09d" % (ri(1, 96), ri(0, 3), ri(0, 10**9 - 1)))], "id": [("id_nik", lambda: "3%03d%02d%02d%02d%04d" % (ri(100, 999), ri(1, 28), ri(1, 12), ri(70, 99), ri(1, 9999)))]}
    k, f = ch(m[lang]); return k, f()
def passport(): return ch(["C" + rs(8, "CFGHJKLMNPRTVWXYZ0123456789"), str(ri(100000000, 999999999)), rs(2, string.ascii_uppercase) + str(ri(1000000, 9999999)), "E" + str(ri(10000000, 99999999))])
def mrn(): return ch(["MRN-", "MRN ", "PID:", "Pat.-Nr. "]) + str(ri(1000000, 99999999))
def driver_lic(): return ch([rs(5, string.ascii_uppercase) + "%06d" % ri(0, 999999) + rs(2, "ABCDEFGHJK") + str(ri(0, 9)) + rs(2, string.ascii_uppercase), "D" + str(ri(1000000, 9999999)), "B%08d" % ri(0, 99999999)])

# ---------------------------------------------------------------- row context
class Ctx:
    def __init__(s, lang, nosec):
        s.lang = lang; s.nosec = nosec; s.secrets = []; s.pii = []; s.decoys = []
    def S(s, v, kind, enc=None, env="SECRET"):
        """insert a secret; in no-secret rows it is replaced by a masked value / placeholder (labelled decoy)."""
        if s.nosec:
            alt = ch([masked(v), placeholder(env), masked(v)]) if len(v) >= 12 else ch(["********", "<redacted>", "${%s}" % env, "***"])
            if enc:
                try: alt2 = enc(alt)
                except Exception: alt2 = alt
            else: alt2 = alt
            s.D(alt2, "masked_or_placeholder"); return alt2
        lab = {"value": v, "kind": kind}
        out = v
        if enc:
            out = enc(v)
            if out != v: lab["shown"] = out
        s.secrets.append(lab); return out
    def P(s, v, kind, enc=None):
        lab = {"value": v, "kind": kind}; out = v
        if enc:
            out = enc(v)
            if out != v: lab["shown"] = out
        s.pii.append(lab); return out
    def D(s, v, kind):
        if len(v) >= 3: s.decoys.append({"value": v, "kind": kind})
        return v
    def pem(s, v, kind, indent=""):
        """PEM inserted as-is (plain) or indented (pieces)."""
        if s.nosec:
            return s.D("-----BEGIN PRIVATE KEY-----\n%s<redacted>\n%s-----END PRIVATE KEY-----" % (indent, indent) if indent else "-----BEGIN PRIVATE KEY-----\n<redacted>\n-----END PRIVATE KEY-----", "masked_or_placeholder")
        if not indent:
            s.secrets.append({"value": v, "kind": kind}); return v
        lines = v.split("\n"); s.secrets.append({"value": v, "kind": kind, "pieces": lines})
        return ("\n" + indent).join(lines)
    # convenience
    def name(s, lang=None, label=True):
        n, r, e = person(lang or s.lang); return (s.P(n, "person_name") if label else n), r, e
    def email(s, e): return s.P(e, "email")
    def nid(s, enc=None):
        k, v = natid(s.lang); return s.P(v, k, enc)
    def vend(s, enc=None):
        env, v, k = vendor(); return env, s.S(v, k, enc, env), k

def wrap_block(ctx, block, width, indent):
    """hard-wrap every line of block longer than width; continuation lines get `indent` spaces.
    Labels (secrets/pii) cut by a wrap get `pieces`. Returns None if some piece would be < 6 chars."""
    out_lines = []; segs = []  # (orig_start, orig_end, line_text) per produced segment
    pos = 0
    for line in block.split("\n"):
        if len(line) <= width:
            out_lines.append(line); segs.append((pos, pos + len(line)))
        else:
            i = 0; first = True
            while i < len(line):
                w = width if first else width - indent
                out_lines.append(("" if first else " " * indent) + line[i:i + w]); segs.append((pos + i, pos + min(i + w, len(line)))); i += w; first = False
        pos += len(line) + 1
    def cut(a, b):
        return [block[max(a, s0):min(b, s1)] for s0, s1 in segs if s0 < b and s1 > a]
    for lab in ctx.secrets + ctx.pii:
        if "pieces" in lab: continue
        tgt = lab.get("shown", lab["value"]); start = 0
        while True:
            k = block.find(tgt, start)
            if k < 0: break
            parts = [p for p in cut(k, k + len(tgt)) if p]
            if len(parts) > 1:
                if "shown" in lab or any(len(p) < 6 for p in parts): return None
                lab["pieces"] = parts
            start = k + 1
    keep = []
    for d in ctx.decoys:
        k = block.find(d["value"]); ok = True
        while k >= 0:
            if len([p for p in cut(k, k + len(d["value"])) if p]) > 1: ok = False
            k = block.find(d["value"], k + 1)
        if ok: keep.append(d)
    ctx.decoys = keep
    return "\n".join(out_lines)

def try_wrap(ctx, block, widths=(80, 100, 120), indents=(0, 1, 2, 3, 4, 5)):
    import copy
    for _ in range(30):
        w, ind = ch(widths), ch(indents)
        c2 = copy.deepcopy(ctx); res = wrap_block(c2, block, w, ind)
        if res is not None:
            ctx.secrets, ctx.pii, ctx.decoys = c2.secrets, c2.pii, c2.decoys; return res
    return block

def jesc(s, ascii_=None):
    """JSON string body (without quotes)"""
    return json.dumps(s, ensure_ascii=R.random() < .5 if ascii_ is None else ascii_)[1:-1]

# neighbour material
def log_noise(n=3):
    L = []
    for _ in range(n):
        L.append(ch([
            "%s INFO  [%s] request completed method=GET path=/api/v1/orders/%d status=200 duration=%dms trace_id=%s" % (ts(), ch(["http-nio-8080-exec-3", "main", "worker-2"]), ri(1000, 99999), ri(2, 900), trace_id()),
            "%s WARN  pool exhausted, waiting for connection (active=%d idle=0 max=%d)" % (ts(), ri(10, 50), ri(10, 50)),
            "%s DEBUG cache miss key=user:%d:profile ttl=%ds" % (ts(), ri(1, 10**6), ch([60, 300, 3600])),
            "%s INFO  Started Application in %.3f seconds (process running for %.3f)" % (ts(), R.random() * 20, R.random() * 30),
            "%s ERROR upstream timed out (110: Connection timed out) upstream=http://%s:%d/" % (ts(), priv_ip(), ch([8080, 3000, 9000])),
            "%s INFO  consumer group rebalanced partitions=[%d,%d] generation=%d" % (ts(), ri(0, 5), ri(6, 11), ri(1, 400)),
        ]))
    return "\n".join(L)
def cfg_noise(ctx, style="env", n=3):
    items = [("LOG_LEVEL", ch(["info", "debug", "warn"])), ("PORT", str(ch([3000, 8080, 8000, 5000]))), ("NODE_ENV", "production"), ("TZ", ch(["UTC", "Europe/Berlin", "Asia/Tokyo"])),
             ("TOKEN_TTL", str(ch([3600, 900, 86400]))), ("PASSWORD_MIN_LENGTH", str(ch([8, 12, 14]))), ("SESSION_TIMEOUT", ch(["30m", "1h", "8h"])), ("AWS_REGION", ch(["eu-west-1", "us-east-1", "ap-northeast-1"])),
             ("FEATURE_FLAGS", ch(["new-checkout,dark-mode", "beta-search"])), ("MAX_RETRIES", str(ri(2, 8))), ("API_BASE_URL", "https://api.%s/v2" % ch(DOMAINS)), ("REDIS_HOST", ch(HOSTS)),
             ("SENTRY_DSN", None), ("BUILD_SHA", None), ("RELEASE_ID", None), ("KEY_ROTATION_DAYS", str(ch([30, 90]))), ("JWT_ALGORITHM", ch(["RS256", "HS256"]))]
    out = []
    for k, v in R.sample(items, n):
        if k == "SENTRY_DSN": v = ctx.D(sentry_dsn(), "sentry_public_dsn")
        elif k == "BUILD_SHA": v = ctx.D(sha1(), "commit_sha")
        elif k == "RELEASE_ID": v = ctx.D(uuid4(), "uuid")
        elif k in ("TOKEN_TTL", "PASSWORD_MIN_LENGTH"): ctx.D("%s=%s" % (k, v), "ttl_or_policy") if style == "env" else None
        out.append((k, v))
    return out
def prose(ctx, keys):
    return " ".join(T(ctx.lang, k) for k in keys)

# ---------------------------------------------------------------- styles
STYLES = {}
def style(name):
    def d(f): STYLES[name] = f; return f
    return d
b64e = lambda v: base64.b64encode(v.encode()).decode()

@style("k8s_secret_yaml")
def st_k8s_secret(c):
    ns = ch(["default", "prod", "payments", "kube-system", "staging"]); nm = ch(["app-secrets", "db-credentials", "api-keys", "smtp", "registry-pull"])
    data = []
    for _ in range(ri(2, 5)):
        env, v, k = c.vend(enc=b64e); data.append((env, v))
    if R.random() < .5: data.append(("DB_HOST", c.D(b64_nonsecret(), "base64_nonsecret")))
    if R.random() < .4:
        p = pem(ch(["RSA PRIVATE KEY", "PRIVATE KEY"])); data.append(("tls.key", c.S(p, "private_key", b64e)))
        data.append(("tls.crt", c.D(base64.b64encode(b"-----BEGIN CERTIFICATE-----\n" + R.randbytes(90) + b"\n-----END CERTIFICATE-----").decode(), "certificate_base64")))
    uid = c.D(uuid4(), "uuid")
    hdr = ch(["$ kubectl get secret %s -n %s -o yaml\n" % (nm, ns), "kubectl -n %s get secret/%s -oyaml\n" % (ns, nm), ""])
    y = hdr + "apiVersion: v1\ndata:\n" + "".join("  %s: %s\n" % (k, v) for k, v in data)
    y += "kind: Secret\nmetadata:\n  creationTimestamp: \"%s\"\n  name: %s\n  namespace: %s\n  resourceVersion: \"%d\"\n  uid: %s\ntype: %s\n" % (ts()[:19] + "Z", nm, ns, ri(10000, 9999999), uid, ch(["Opaque", "Opaque", "kubernetes.io/tls"]))
    if R.random() < .5: y = prose(c, ["intro"]) + "\n\n```yaml\n" + y + "```\n" + prose(c, ch([["help"], ["rotate"], ["works", "help"]]))
    return y

@style("k8s_describe")
def st_k8s_describe(c):
    pod = "%s-%s-%s" % (ch(["api", "worker", "billing", "web"]), rs(10, "bcdfghjklmnpqrstvwxz2456789"), rs(5, "bcdfghjklmnpqrstvwxz2456789"))
    envs = []
    for k, v in cfg_noise(c, "yaml", ri(2, 4)): envs.append("      %s:  %s" % (k, v))
    for _ in range(ri(1, 3)):
        env, v, k = c.vend(); envs.append("      %s:  %s" % (env, v))
    envs.append("      DB_PASSWORD:  <set to the key 'password' in secret '%s'>  Optional: false" % ch(["db-credentials", "pg-auth"]))
    c.D("<set to the key 'password' in secret", "placeholder")
    R.shuffle(envs)
    img = "registry.%s/%s@%s" % (ch(DOMAINS), ch(["api", "billing"]), c.D(digest(), "image_digest"))
    t = """Name:             %s
Namespace:        %s
Priority:         0
Node:             ip-%s.ec2.internal/%s
Start Time:       %s
Labels:           app=%s
                  pod-template-hash=%s
Status:           %s
IP:               %s
Containers:
  app:
    Container ID:   containerd://%s
    Image:          %s
    Port:           %d/TCP
    State:          %s
    Ready:          False
    Restart Count:  %d
    Environment:
%s
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-%s (ro)
Events:
  Type     Reason     Age                 From     Message
  ----     ------     ----                ----     -------
  Warning  BackOff    %dm (x%d over %dm)  kubelet  Back-off restarting failed container app in pod %s
""" % (pod, ch(["prod", "default"]), priv_ip().replace(".", "-"), priv_ip(), ts(), pod.split("-")[0], rs(10, "bcdfghjklmnpqrstvwxz2456789"), ch(["Running", "CrashLoopBackOff"]), priv_ip(),
       c.D(rs(64, HEX), "container_id"), img, ch([8080, 3000]), ch(["Waiting\n      Reason:       CrashLoopBackOff", "Running"]), ri(0, 40), "\n".join(envs), rs(5, "bcdfghjklmnpqrstvwxz2456789"), ri(1, 50), ri(2, 90), ri(5, 200), pod)
    if R.random() < .5:
        sec = "\n---\n$ kubectl describe secret %s\nName:         %s\nType:  Opaque\n\nData\n====\npassword:  %d bytes\nusername:  %d bytes\napi-key:   %d bytes\n" % ("db-credentials", "db-credentials", ri(8, 40), ri(4, 12), ri(32, 64))
        t += sec
    return (prose(c, ["fail"]) + "\n\n" if R.random() < .6 else "") + t

@style("docker_inspect")
def st_docker_inspect(c):
    env = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "PYTHON_VERSION=%s" % version()]
    for k, v in cfg_noise(c, "env", ri(2, 4)): env.append("%s=%s" % (k, v))
    for _ in range(ri(1, 3)):
        e, v, k = c.vend(enc=lambda x: jesc(x, True)); env.append("%s=%s" % (e, v))
    if R.random() < .5:
        u = ch(["app", "postgres", "svc_orders"]); pw = pw_urlsafe()
        env.append("DATABASE_URL=postgres://%s:%s@%s:5432/%s" % (u, c.S(pw, "password", lambda x: jesc(x, True)), ch(HOSTS), ch(["orders", "app", "prod"])))
    R.shuffle(env)
    cid = c.D(rs(64, HEX), "container_id")
    j = '[\n    {\n        "Id": "%s",\n        "Created": "%s",\n        "Path": "docker-entrypoint.sh",\n        "State": {\n            "Status": "%s",\n            "ExitCode": %d\n        },\n        "Image": "%s",\n        "Name": "/%s",\n        "Config": {\n            "Hostname": "%s",\n            "Env": [\n%s\n            ],\n            "Cmd": [\n                "%s"\n            ],\n            "Labels": {\n                "com.docker.compose.project": "%s",\n                "org.opencontainers.image.revision": "%s"\n            }\n        },\n        "NetworkSettings": {\n            "IPAddress": "%s",\n            "Ports": {"%d/tcp": [{"HostIp": "0.0.0.0", "HostPort": "%d"}]}\n        }\n    }\n]' % (
        cid, ts(), ch(["running", "exited"]), ch([0, 1, 137]), c.D(digest(), "image_digest"), ch(["api-1", "myapp_web_1", "worker"]), cid[:12], ",\n".join('                "%s"' % e for e in env),
        ch(["node", "gunicorn", "python"]), ch(["myapp", "shop"]), c.D(sha1(), "commit_sha"), c.D(priv_ip(), "private_ip"), ch([8080, 3000, 5432]), ch([8080, 3000, 15432]))
    return ch(["$ docker inspect %s\n" % cid[:12], "docker container inspect api\n", prose(c, ["intro"]) + "\n"]) + j

@style("compose_config")
def st_compose(c):
    svcs = []
    db_pw = pw_any()
    db = c.S(db_pw, "password", env="POSTGRES_PASSWORD")
    svcs.append("  db:\n    environment:\n      POSTGRES_DB: app\n      POSTGRES_PASSWORD: %s\n      POSTGRES_USER: app\n    image: postgres:%s\n    networks:\n      default: null\n    ports:\n    - mode: ingress\n      target: 5432\n      published: \"5432\"\n      protocol: tcp" % (json.dumps(db) if " " in db else db, ch(["16-alpine", "15.4"])))
    envs = ["      %s: %s" % (k, v) for k, v in cfg_noise(c, "yaml", ri(2, 4))]
    for _ in range(ri(1, 3)):
        e, v, k = c.vend(); envs.append("      %s: %s" % (e, v))
    envs.append("      DATABASE_URL: postgresql://app:%s@db:5432/app" % c.S(db_pw, "password", lambda x: urllib.parse.quote(x, safe=""), env="POSTGRES_PASSWORD") if R.random() < .6 else "      DATABASE_URL: postgresql://app:${POSTGRES_PASSWORD}@db:5432/app")
    R.shuffle(envs)
    svcs.append("  api:\n    build:\n      context: /home/%s/src/api\n      dockerfile: Dockerfile\n    depends_on:\n      db:\n        condition: service_healthy\n        required: true\n    environment:\n%s\n    image: %s\n    ports:\n    - mode: ingress\n      target: 8000\n      published: \"8000\"\n      protocol: tcp" % (ch(["dev", "runner", "ubuntu"]), "\n".join(envs), ch(["ghcr.io/acme/api:latest", "myapp-api"])))
    if R.random() < .5:
        svcs.append("  redis:\n    command:\n    - redis-server\n    - --requirepass\n    - %s\n    image: redis:7" % c.S(rs(ri(16, 32)), "password", env="REDIS_PASSWORD"))
    t = "name: %s\nservices:\n%s\nnetworks:\n  default:\n    name: %s_default\n" % (ch(["myapp", "shop", "backend"]), "\n".join(svcs), "myapp")
    return ch(["$ docker compose config\n", "docker compose -f compose.prod.yml config\n"]) + t + ("\n" + prose(c, ["help"]) if R.random() < .5 else "")

@style("aws_cli_json")
def st_aws(c):
    acct = c.D(aws_acct(), "aws_account_id"); sub = ri(0, 2)
    if sub == 0:
        arn = c.D("arn:aws:sts::%s:assumed-role/%s/%s" % (acct, ch(["DeployRole", "OrganizationAccountAccessRole", "ci-readonly"]), ch(["gha-session", "cli-%d" % ri(1000, 9999)])), "arn")
        j = {"Credentials": {"AccessKeyId": c.S(aws_akid("ASIA"), "aws_access_key_id"), "SecretAccessKey": c.S(aws_secret(), "aws_secret_access_key"), "SessionToken": c.S(aws_session(), "aws_session_token"), "Expiration": ts()[:19] + "+00:00"},
             "AssumedRoleUser": {"AssumedRoleId": "AROA%s:%s" % (rs(17, UPDIG), "gha-session"), "Arn": arn}}
        cmd = "aws sts assume-role --role-arn arn:aws:iam::%s:role/DeployRole --role-session-name gha-session" % acct
    elif sub == 1:
        sv = {}
        for _ in range(ri(2, 4)):
            e, v, k = c.vend(enc=lambda x: jesc(jesc(x, False), False)); sv[e] = v
        sv["DB_HOST"] = ch(HOSTS)
        inner = "{" + ", ".join('\\"%s\\":\\"%s\\"' % (k, v) for k, v in sv.items()) + "}"
        name = ch(["prod/api", "payments/stripe", "rds!db-" + uuid4()])
        out = '{\n    "ARN": "%s",\n    "Name": "%s",\n    "VersionId": "%s",\n    "SecretString": "%s",\n    "VersionStages": [\n        "AWSCURRENT"\n    ],\n    "CreatedDate": "%s"\n}' % (
            c.D("arn:aws:secretsmanager:eu-west-1:%s:secret:%s-%s" % (acct, name, rs(6)), "arn"), name, c.D(uuid4(), "uuid"), inner, ts())
        return "$ aws secretsmanager get-secret-value --secret-id %s\n%s" % (name, out)
    else:
        user = ch(["ci-deployer", "terraform", "backup-bot"])
        j = {"AccessKey": {"UserName": user, "AccessKeyId": c.S(aws_akid(), "aws_access_key_id"), "Status": "Active", "SecretAccessKey": c.S(aws_secret(), "aws_secret_access_key"), "CreateDate": ts()[:19] + "+00:00"}}
        cmd = "aws iam create-access-key --user-name %s" % user
    out = json.dumps(j, indent=4)
    pre = ch(["$ " + cmd + "\n", prose(c, ["intro"]) + "\n" + cmd + "\n", ""])
    post = ch(["", "\n" + prose(c, ["rotate"]), "\n\n$ aws sts get-caller-identity\n" + json.dumps({"UserId": "AIDA" + rs(17, UPDIG), "Account": acct, "Arn": "arn:aws:iam::%s:user/%s" % (acct, ch(["ci", "deploy"]))}, indent=4)])
    return pre + out + post

@style("gcloud_az_cli")
def st_gcloud_az(c):
    sub = ri(0, 3)
    if sub == 0:
        acct = ch(["mystorage", "prodlogs", "backupsweu"]) + str(ri(10, 99))
        keys = [{"creationTime": ts(), "keyName": "key%d" % i, "permissions": "FULL", "value": c.S(azure_key(), "azure_storage_key")} for i in (1, 2)]
        return "$ az storage account keys list --account-name %s --resource-group %s\n%s" % (acct, ch(["rg-prod", "rg-data"]), json.dumps(keys, indent=2))
    if sub == 1:
        j = {"appId": c.D(uuid4(), "azure_app_id"), "displayName": ch(["gh-actions-deployer", "terraform-sp"]), "password": c.S(az_sp_pw(), "azure_client_secret"), "tenant": c.D(uuid4(), "azure_tenant_id")}
        return ch(["$ az ad sp create-for-rbac --name %s --role contributor --scopes /subscriptions/%s\n" % (j["displayName"], c.D(uuid4(), "azure_subscription_id")), ""]) + "Creating 'Contributor' role assignment under scope '/subscriptions/...'\nThe output includes credentials that you must protect. Be sure that you do not include these credentials in your code or check the credentials into your source control.\n" + json.dumps(j, indent=2)
    if sub == 2:
        proj = ch(["acme-prod-3921", "shop-analytics", "ml-platform-dev"]); sa = "%s@%s.iam.gserviceaccount.com" % (ch(["deployer", "bq-reader", "github-ci"]), proj)
        key = pem("PRIVATE KEY")
        j = {"type": "service_account", "project_id": proj, "private_key_id": c.D(rs(40, HEX), "key_id"), "private_key": key + "\n", "client_email": c.D(sa, "service_account_email"), "client_id": str(ri(10**20, 10**21)),
             "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token", "universe_domain": "googleapis.com"}
        s = json.dumps(j, indent=2)
        enc_key = json.dumps(key + "\n")[1:-1]
        if c.nosec:
            s = s.replace(enc_key, "-----BEGIN PRIVATE KEY-----\\n<redacted>\\n-----END PRIVATE KEY-----\\n"); c.D("<redacted>", "masked_or_placeholder")
        else:
            c.secrets.append({"value": key, "kind": "gcp_private_key", "shown": json.dumps(key)[1:-1]})
        return "$ gcloud iam service-accounts keys create key.json --iam-account=%s\ncreated key [%s] of type [json] as [key.json] for [%s]\n$ cat key.json\n%s" % (sa, j["private_key_id"], sa, s)
    sas = base64.b64encode(R.randbytes(32)).decode()
    url = "https://%s.blob.core.windows.net/%s/%s?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=%sZ&st=%sZ&spr=https&sig=%s" % (ch(["prodlogs", "exports"]) + str(ri(1, 99)), ch(["backups", "exports"]), ch(["db-2026-10-01.bak", "report.csv"]), ts()[:19], ts()[:19], c.S(sas, "azure_sas_signature", lambda x: urllib.parse.quote(x, safe="")))
    conn = "DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=core.windows.net" % ("prodlogs%d" % ri(1, 99), c.S(azure_key(), "azure_storage_key"))
    return "$ az storage blob generate-sas ... --full-uri -o tsv\n%s\n\n$ az storage account show-connection-string -n prodlogs -o tsv\n%s\n\n%s" % (url, conn, prose(c, ["help"]))

@style("secrets_manager_cli")
def st_smcli(c):
    sub = ri(0, 5)
    if sub == 0:
        u = c.P(person(c.lang)[2], "email"); pw = c.S(pw_any(), "password")
        t = "$ op item get \"%s\" --vault %s\nID:          %s\nTitle:       %s\nVault:       %s (%s)\nCreated:     %d months ago\nUpdated:     %d days ago by %s\nFavorite:    false\nVersion:     %d\nCategory:    LOGIN\nFields:\n  username:    %s\n  password:    %s\n  one-time password: %s\nURLs:\n  website:    https://%s (primary)\n" % (
            "AWS root", "Infra", rs(26, string.ascii_lowercase + string.digits), ch(["AWS root", "Grafana admin", "Stripe dashboard"]), "Infra", rs(26, string.ascii_lowercase + string.digits), ri(2, 30), ri(1, 60), c.name()[0], ri(1, 20), u, pw,
            "otpauth://totp/Acme:admin?secret=%s&issuer=Acme" % c.S(totp_seed(), "totp_seed") if R.random() < .5 else "%06d (expires in %ds)" % (ri(0, 999999), ri(1, 30)), ch(DOMAINS))
        return t
    if sub == 1:
        rows = [("DOPPLER_CONFIG", "prd"), ("DOPPLER_ENVIRONMENT", "prd"), ("DOPPLER_PROJECT", ch(["backend", "web"]))]
        for k, v in cfg_noise(c, "tbl", 2): rows.append((k, v))
        for _ in range(ri(2, 4)):
            e, v, k = c.vend(); rows.append((e, v))
        rows.sort(); w = max(len(r[0]) for r in rows); w2 = min(60, max(len(r[1]) for r in rows))
        line = "┌" + "─" * (w + 2) + "┬" + "─" * (w2 + 2) + "┐"
        body = "\n├" + "─" * (w + 2) + "┼" + "─" * (w2 + 2) + "┤\n"
        return "$ doppler secrets\n" + line + "\n│ %s │ %s │" % ("NAME".ljust(w), "VALUE".ljust(w2)) + body + body.join("│ %s │ %s │" % (a.ljust(w), b.ljust(w2)) for a, b in rows) + "\n└" + "─" * (w + 2) + "┴" + "─" * (w2 + 2) + "┘"
    rows = cfg_noise(c, "tbl", 3)
    for _ in range(ri(1, 3)):
        e, v, k = c.vend(); rows.append((e, v))
    if R.random() < .6:
        pw = pw_urlsafe(); rows.append(("DATABASE_URL", "postgres://%s:%s@ec2-%s.compute-1.amazonaws.com:5432/%s" % (rs(14, string.ascii_lowercase), c.S(pw, "password"), pub_ip().replace(".", "-"), rs(14, string.ascii_lowercase))))
    R.shuffle(rows)
    if sub == 2:
        app = ch(["shop-api", "intense-river-4821"]); w = max(len(k) for k, v in rows) + 1
        return "$ heroku config -a %s\n=== %s Config Vars\n" % (app, app) + "\n".join("%s %s" % ((k + ":").ljust(w), v) for k, v in rows)
    if sub == 3:
        return "$ vercel env pull .env.local\nVercel CLI %s\n> Downloading `development` Environment Variables for %s\n✅  Created .env.local file  [%dms]\n$ cat .env.local\n# Created by Vercel CLI\n" % (version(), ch(["acme/web", "me/blog"]), ri(100, 900)) + "\n".join('%s="%s"' % (k, v) for k, v in rows) + '\nVERCEL_OIDC_TOKEN="%s"\n' % c.S(jwt(), "jwt")
    if sub == 4:
        return "$ fly secrets list\nNAME                 	DIGEST          	CREATED AT\n" + "\n".join("%s\t%s\t%s" % (k.ljust(20), c.D(rs(16, HEX), "secret_digest"), ch(["2h ago", "Oct 3 2026 10:41", "5d ago"])) for k, v in rows) + "\n\n$ fly ssh console -C env | grep -i key\n" + "\n".join("%s=%s" % (k, v) for k, v in rows if "KEY" in k or "TOKEN" in k or "URL" in k)
    return "$ netlify env:list --plain --context production\n" + "\n".join("%s=%s" % (k, v) for k, v in rows) + "\n" + ch(["", "\n" + prose(c, ["note"]) + ": " + prose(c, ["rotate"])])

@style("vault_kv")
def st_vault(c):
    path = ch(["secret/prod/api", "kv/payments/stripe", "secret/data/db/postgres", "apps/billing/config"])
    rows = []
    for _ in range(ri(2, 4)):
        e, v, k = c.vend(); rows.append((e.lower(), v))
    if R.random() < .5: rows.append(("username", ch(["app_rw", "svc_billing"])))
    rows += [(k.lower(), v) for k, v in cfg_noise(c, "tbl", ri(0, 2))]
    w = max(len(k) for k, _ in rows)
    md = "====== Secret Path ======\n%s\n\n======= Metadata =======\nKey                Value\n---                -----\ncreated_time       %s\ncustom_metadata    <nil>\ndeletion_time      n/a\ndestroyed          false\nversion            %d\n\n====== Data ======\n%s    Value\n%s    -----\n" % (path.replace("secret/", "secret/data/", 1), ts(), ri(1, 40), "Key".ljust(w), "---".ljust(w))
    md += "\n".join("%s    %s" % (k.ljust(w), v) for k, v in rows)
    pre = ch(["$ vault kv get %s\n" % path, "$ export VAULT_ADDR=https://%s:8200\n$ vault login -method=oidc\nSuccess! You are now authenticated.\n\nKey                  Value\n---                  -----\ntoken                %s\ntoken_accessor       %s\ntoken_duration       %s\ntoken_renewable      true\ntoken_policies       [\"default\" \"%s\"]\n\n$ vault kv get %s\n" % (ch(HOSTS), c.S(vault_tok(), "vault_token"), c.D(rs(24, B64U), "vault_token_accessor"), ch(["768h", "1h", "32m"]), ch(["dev", "ops"]), path)])
    return pre + md

def box_table(headers, rows, kind="psql"):
    w = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    if kind == "psql":
        out = [" " + " | ".join(h.ljust(n) for h, n in zip(headers, w)), "-" + "-+-".join("-" * n for n in w) + "-"]
        out += [" " + " | ".join(str(x).ljust(n) for x, n in zip(r, w)) for r in rows]
        return "\n".join(out) + "\n(%d row%s)" % (len(rows), "" if len(rows) == 1 else "s")
    if kind == "mysql":
        sep = "+" + "+".join("-" * (n + 2) for n in w) + "+"
        out = [sep, "| " + " | ".join(h.ljust(n) for h, n in zip(headers, w)) + " |", sep] + ["| " + " | ".join(str(x).ljust(n) for x, n in zip(r, w)) + " |" for r in rows] + [sep]
        return "\n".join(out) + "\n%d rows in set (0.%02d sec)" % (len(rows), ri(0, 99))
    if kind == "md":
        out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"] + ["| " + " | ".join(map(str, r)) + " |" for r in rows]
        return "\n".join(out)
    if kind == "box":
        top = "╭" + "┬".join("─" * (n + 2) for n in w) + "╮"; mid = "├" + "┼".join("─" * (n + 2) for n in w) + "┤"; bot = "╰" + "┴".join("─" * (n + 2) for n in w) + "╯"
        return "\n".join([top, "│ " + " │ ".join(h.ljust(n) for h, n in zip(headers, w)) + " │", mid] + ["│ " + " │ ".join(str(x).ljust(n) for x, n in zip(r, w)) + " │" for r in rows] + [bot])
    return "|".join(headers) + "\n" + "\n".join("|".join(map(str, r)) for r in rows)

@style("sql_client")
def st_sql(c):
    kind = ch(["psql", "mysql", "sqlite"]); sub = ri(0, 2)
    if sub == 0:
        hd = ["id", "email", "full_name", "phone", "created_at"]
        rows = []
        for i in range(ri(3, 7)):
            n, r, e = person(c.lang); rows.append([ri(1, 99999), c.P(e, "email"), c.P(n, "person_name"), c.P(phone(c.lang), "phone"), date() + " %02d:%02d" % (ri(0, 23), ri(0, 59))])
        q = "SELECT id, email, full_name, phone, created_at FROM users WHERE created_at > now() - interval '7 days' LIMIT 10;"
    elif sub == 1:
        hd = ["id", "name", "provider", "api_key", "last_used"]
        rows = []
        for i in range(ri(2, 5)):
            env, v, k = vendor(); rows.append([i + 1, ch(["billing", "mailer", "search", "ci"]) + "-" + str(i), k.split("_")[0], c.S(v, k, env=env), date()])
        if R.random() < .5: rows.append([len(rows) + 1, "legacy", "internal", c.D(masked(), "masked_or_placeholder"), "NULL"])
        q = "SELECT id, name, provider, api_key, last_used FROM integrations ORDER BY id;"
    else:
        hd = ["user_id", "token", "expires_at", "ip"]
        rows = [[ri(1, 9999), c.S(ch([rs(43, B64U), rs(64, HEX), jwt()]), "session_token"), ts()[:19], c.P(pub_ip(), "end_user_ip")] for _ in range(ri(2, 4))]
        q = "select user_id, token, expires_at, ip from sessions where revoked = false;"
    prompt = {"psql": "app_prod=> ", "mysql": "mysql> ", "sqlite": "sqlite> "}[kind]
    head = {"psql": "$ psql \"postgresql://%s@%s:5432/app_prod\"\npsql (16.%d)\nSSL connection (protocol: TLSv1.3, cipher: TLS_AES_256_GCM_SHA384, compression: off)\nType \"help\" for help.\n\n" % (ch(["readonly", "postgres"]), ch(HOSTS), ri(0, 4)),
            "mysql": "$ mysql -h %s -u admin -p\nEnter password: \nWelcome to the MySQL monitor.  Commands end with ; or \\g.\nServer version: 8.0.%d\n\n" % (ch(HOSTS), ri(20, 39)), "sqlite": "$ sqlite3 db.sqlite3\nSQLite version 3.%d.0\nEnter \".help\" for usage hints.\n" % ri(35, 46)}[kind]
    if kind == "sqlite" and R.random() < .5: head = head.replace("$ sqlite3 db.sqlite3\n", "$ sqlite3 db.sqlite3\n") + "sqlite> .mode box\n"; tk = "box"
    else: tk = {"sqlite": "plain"}.get(kind, kind)
    return head + prompt + q + "\n" + box_table(hd, rows, tk) + "\n"

@style("redis_mongo_session")
def st_redis(c):
    if R.random() < .5:
        host = ch(HOSTS); pw = c.S(rs(ri(20, 40)), "password", env="REDIS_PASSWORD")
        L = ["$ redis-cli -h %s -p 6379 --tls -a '%s' --no-auth-warning" % (host, pw), "%s:6379> KEYS session:*" % host]
        keys = ["session:" + rs(32, HEX) for _ in range(ri(2, 4))]
        L += ['%d) "%s"' % (i + 1, k) for i, k in enumerate(keys)]
        L.append("%s:6379> GET %s" % (host, keys[0]))
        n, r, e = person(c.lang)
        sess = {"user_id": ri(1, 99999), "email": e, "csrf": rs(32, HEX), "oauth_token": "PLACEHOLDER"}
        tok = oauth_refresh()
        s = json.dumps(sess, ensure_ascii=True)
        c.P(e, "email")
        L.append('"%s"' % s.replace('"', '\\"').replace("PLACEHOLDER", c.S(tok, "oauth_refresh_token")))
        L += ["%s:6379> TTL %s" % (host, keys[0]), "(integer) %d" % ri(100, 86400), "%s:6379> CONFIG GET maxmemory-policy" % host, '1) "maxmemory-policy"', '2) "allkeys-lru"']
        return "\n".join(L)
    db = ch(["shop", "app", "crm"]); pw = pw_urlsafe()
    L = ["$ mongosh \"mongodb+srv://%s:%s@%s.%s.mongodb.net/%s\"" % (ch(["admin", "app_rw"]), c.S(pw, "password", lambda x: urllib.parse.quote(x, safe="")), ch(["cluster0", "prod-shard"]), rs(5, string.ascii_lowercase + string.digits), db),
         "Current Mongosh Log ID: %s" % c.D(rs(24, HEX), "object_id"), "Using MongoDB: %s" % version(), "", "Atlas atlas-%s-shard-0 [primary] %s> db.customers.find({}, {_id:1,name:1,email:1,phone:1}).limit(2)" % (rs(6, string.ascii_lowercase), db), "["]
    docs = []
    for _ in range(2):
        n, r, e = person(c.lang)
        docs.append("  {\n    _id: ObjectId('%s'),\n    name: '%s',\n    email: '%s',\n    phone: '%s'\n  }" % (c.D(rs(24, HEX), "object_id"), c.P(n, "person_name"), c.P(e, "email"), c.P(phone(c.lang), "phone")))
    L.append(",\n".join(docs)); L.append("]")
    return "\n".join(L)

@style("jupyter_notebook")
def st_jupyter(c):
    cells = []
    def code(src, outs):
        return {"cell_type": "code", "execution_count": ri(1, 40), "id": rs(8, HEX), "metadata": {}, "outputs": outs, "source": src}
    env, v, k = vendor()
    # secret in source and echoed in output
    sv = c.S(v, k, lambda x: jesc(x, True), env=env)
    cells.append({"cell_type": "markdown", "id": rs(8, HEX), "metadata": {}, "source": ["# " + ch(["Churn analysis", "Load test results", "Embedding eval"]) + "\n", prose(c, ["note"]) + ": " + prose(c, ["works"])]})
    cells.append(code(["import os, requests\n", "os.environ[\"%s\"] = \"SECRETPLACE\"\n" % env, "print(len(os.environ[\"%s\"]))" % env], [{"name": "stdout", "output_type": "stream", "text": [str(len(v)) + "\n"]}]))
    n, r, e = person(c.lang)
    df = [["customer_id", "name", "email", "country"]] + [[ri(1000, 9999), "NAMEP%d" % i, "MAILP%d" % i, ch(["DE", "JP", "BR"])] for i in range(3)]
    cells.append(code(["df = pd.read_sql(\"select * from customers limit 3\", engine)\n", "df"], [{"data": {"text/plain": ["\n".join("  ".join(map(str, r)) for r in df)]}, "execution_count": 3, "metadata": {}, "output_type": "execute_result"}]))
    cells.append(code(["resp = requests.get(URL, headers=H)\n", "resp.status_code"], [{"data": {"text/plain": ["401"]}, "execution_count": 4, "metadata": {}, "output_type": "execute_result"}]))
    nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    s = json.dumps(nb, indent=1, ensure_ascii=R.random() < .5)
    s = s.replace("SECRETPLACE", sv.replace("\\", "\\\\\\\\") if False else sv)
    for i in range(3):
        n, r, e = person(c.lang)
        enc = lambda x: json.dumps(x, ensure_ascii="\\u" in s)[1:-1]
        s = s.replace("NAMEP%d" % i, c.P(n, "person_name", enc), 1).replace("MAILP%d" % i, c.P(e, "email"), 1)
    if not c.nosec and len(v) >= 8:
        pass
    return ch(["", "$ cat notebooks/%s.ipynb | head -c 6000\n" % ch(["analysis", "eval"])]) + s

@style("repl_session")
def st_repl(c):
    sub = ri(0, 3)
    if sub == 0:
        env, v, k = vendor(); vv = c.S(v, k, env=env)
        return "$ python3\nPython 3.12.%d (main, %s) [GCC 13.2.0] on linux\n>>> import os\n>>> os.environ.get(\"%s\")\n'%s'\n>>> from app.db import engine\n>>> engine.url\npostgresql+psycopg://app:***@%s:5432/app\n>>> engine.url.render_as_string(hide_password=False)\n'postgresql+psycopg://app:%s@%s:5432/app'\n>>> " % (
            ri(0, 7), date(), env, vv, ch(HOSTS), c.S(pw_urlsafe(), "password"), ch(HOSTS))
    if sub == 1:
        n, r, e = person(c.lang)
        return "$ node\nWelcome to Node.js v%d.%d.0.\n> require('dotenv').config()\n{ parsed: { %s } }\n> const u = await db.user.findFirst({ where: { email: '%s' } })\nundefined\n> u\n{\n  id: %d,\n  name: '%s',\n  email: '%s',\n  resetToken: '%s',\n  createdAt: %s\n}" % (
            ri(18, 23), ri(0, 12), ", ".join("%s: '%s'" % (e2, c.S(v2, k2, env=e2)) for e2, v2, k2 in [vendor() for _ in range(ri(1, 3))]), c.P(e, "email"), ri(1, 9999), c.P(n, "person_name"), e, c.S(rs(40, HEX), "password_reset_token"), ts())
    if sub == 2:
        n, r, e = person(c.lang)
        return "$ bin/rails console -e production\nLoading production environment (Rails %s)\nirb(main):001> Rails.application.credentials.dig(:stripe, :secret_key)\n=> \"%s\"\nirb(main):002> User.find_by(email: \"%s\").slice(:id, :name, :phone)\n=> {\"id\"=>%d, \"name\"=>\"%s\", \"phone\"=>\"%s\"}\nirb(main):003> ENV.fetch(\"SECRET_KEY_BASE\")\n=> \"%s\"" % (
            version(), c.S(stripe_sk(), "stripe_secret_key"), c.P(e, "email"), ri(1, 99999), c.P(n, "person_name"), c.P(phone(c.lang), "phone"), c.S(rs(128, HEX), "secret_key_base"))
    n, r, e = person(c.lang)
    return "$ python manage.py shell\n>>> from django.conf import settings\n>>> settings.SECRET_KEY\n'%s'\n>>> settings.DATABASES['default']['PASSWORD']\n'%s'\n>>> from accounts.models import Customer\n>>> Customer.objects.filter(id=%d).values('name', 'email', 'national_id')\n<QuerySet [{'name': '%s', 'email': '%s', 'national_id': '%s'}]>" % (
        c.S(django_key(), "django_secret_key").replace("'", "\\'"), c.S(pw_urlsafe(), "password"), ri(1, 9999), c.P(n, "person_name"), c.P(e, "email"), c.nid())

@style("app_config")
def st_appcfg(c):
    sub = ri(0, 4); host = ch(HOSTS)
    if sub == 0:
        pw = pw_any()
        L = ["# %s" % ch(["application-prod.properties", "Spring Boot config"]), "server.port=%d" % ch([8080, 8443]), "spring.datasource.url=jdbc:postgresql://%s:5432/orders?sslmode=require" % host,
             "spring.datasource.username=orders_app", "spring.datasource.password=%s" % c.S(pw, "password", env="DB_PASSWORD"), "spring.jpa.hibernate.ddl-auto=validate",
             "spring.mail.host=smtp.%s" % ch(DOMAINS), "spring.mail.username=%s" % c.D(ch(ROLE_MAIL) + ch(DOMAINS), "role_mailbox"), "spring.mail.password=%s" % c.S(pw_any(), "smtp_password", env="MAIL_PASSWORD"),
             "security.jwt.expiration=%d" % ch([3600, 86400]), "security.password.min-length=%d" % ch([10, 12]), "management.endpoints.web.exposure.include=health,info"]
        if R.random() < .5: L.append("app.jwt.secret=%s" % c.S(base64.b64encode(R.randbytes(48)).decode(), "signing_secret"))
        return "\n".join(L)
    if sub == 1:
        j = {"Logging": {"LogLevel": {"Default": "Information", "Microsoft.AspNetCore": "Warning"}}, "AllowedHosts": "*",
             "ConnectionStrings": {"Default": "Server=tcp:%s.database.windows.net,1433;Initial Catalog=%s;User ID=%s;Password=%s;Encrypt=True;Connection Timeout=30;" % (ch(["sql-prod", "crm-db"]), ch(["Crm", "Orders"]), ch(["sqladmin", "app"]), "PWPLACE")},
             "Jwt": {"Issuer": "https://%s" % ch(DOMAINS), "Audience": "api", "Key": "KEYPLACE", "ExpiryMinutes": 60},
             "AzureAd": {"Instance": "https://login.microsoftonline.com/", "TenantId": c.D(uuid4(), "azure_tenant_id"), "ClientId": c.D(uuid4(), "azure_app_id"), "ClientSecret": "CSPLACE"}}
        s = json.dumps(j, indent=2)
        s = s.replace("PWPLACE", c.S(pw_any(), "password", lambda x: jesc(x, True))).replace("KEYPLACE", c.S(rs(64), "signing_secret")).replace("CSPLACE", c.S(az_sp_pw(), "azure_client_secret"))
        return "appsettings.Production.json:\n" + s
    if sub == 2:
        salts = "\n".join("define( '%s', '%s' );" % (k, c.S(rs(64, string.ascii_letters + string.digits + "!@#$%^&*()-_[]{}<>~+=,.;:/?|"), "wordpress_salt")) for k in R.sample(["AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT"], ri(2, 4)))
        return "<?php\n/** The name of the database for WordPress */\ndefine( 'DB_NAME', 'wp_%s' );\n\n/** Database username */\ndefine( 'DB_USER', 'wp_user' );\n\n/** Database password */\ndefine( 'DB_PASSWORD', '%s' );\n\ndefine( 'DB_HOST', '%s' );\ndefine( 'DB_CHARSET', 'utf8mb4' );\n\n%s\n\n$table_prefix = 'wp_';\ndefine( 'WP_DEBUG', false );\n" % (
            rs(6, string.ascii_lowercase), c.S(pw_human() if R.random() < .5 else rs(20), "password"), ch(["localhost", host]), salts)
    if sub == 3:
        return "# settings/production.py\nfrom .base import *  # noqa\n\nDEBUG = False\nSECRET_KEY = %r\nALLOWED_HOSTS = [%r, %r]\n\nDATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': 'app',\n        'USER': 'app',\n        'PASSWORD': %r,\n        'HOST': %r,\n        'PORT': '5432',\n    }\n}\nEMAIL_HOST_PASSWORD = os.environ.get('EMAIL_HOST_PASSWORD', '')\nAUTH_PASSWORD_VALIDATORS = [{'NAME': 'django.contrib.auth.password_validation.MinimumLengthValidator', 'OPTIONS': {'min_length': 12}}]\nSESSION_COOKIE_AGE = 1209600\nAWS_ACCESS_KEY_ID = %r\nAWS_SECRET_ACCESS_KEY = %r\n" % (
            c.S(django_key(), "django_secret_key"), ch(DOMAINS), "www." + ch(DOMAINS), c.S(pw_urlsafe(), "password"), host, c.S(aws_akid(), "aws_access_key_id"), c.S(aws_secret(), "aws_secret_access_key"))
    L = ["# .env — " + prose(c, ["note"])] + ["%s=%s" % kv for kv in cfg_noise(c, "env", ri(3, 6))]
    for _ in range(ri(2, 5)):
        e, v, k = c.vend(); L.append("%s=%s" % (e, ('"%s"' % v) if " " in v else v))
    L.append("# " + ch(["DO NOT COMMIT", "copy from 1password", "prod values"]))
    L.append("STRIPE_PUBLISHABLE_KEY=%s" % c.D(stripe_pk(), "stripe_publishable_key"))
    L.append("GOOGLE_CLIENT_ID=%s" % c.D(google_client_id(), "google_oauth_client_id"))
    if R.random() < .5: L.append("SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T%s/B%s/%s" % (rs(8, UPDIG), rs(10, UPDIG), c.S(slack_hook_secret(), "slack_webhook_secret")))
    if R.random() < .4: L.append("DISCORD_WEBHOOK=https://discord.com/api/webhooks/%d/%s" % (ri(10**17, 10**18), c.S(discord_hook_secret(), "discord_webhook_token")))
    R.shuffle(L[1:])
    return "\n".join(L)

@style("package_manager_rc")
def st_pkgrc(c):
    sub = ri(0, 7)
    if sub == 0:
        return "$ cat ~/.npmrc\n@%s:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=%s\n//registry.npmjs.org/:_authToken=%s\nsave-exact=true\nfund=false\n" % (ch(["acme", "globex"]), c.S(gh_token(), "github_token"), c.S(npm_tok(), "npm_token"))
    if sub == 1:
        return "[distutils]\nindex-servers =\n    pypi\n    testpypi\n    private\n\n[pypi]\nusername = __token__\npassword = %s\n\n[private]\nrepository = https://pypi.%s/simple/\nusername = %s\npassword = %s\n" % (c.S(pypi_tok(), "pypi_token"), ch(DOMAINS), ch(["deploy", "ci"]), c.S(pw_any(), "password"))
    if sub == 2:
        pw = pw_urlsafe()
        return "# /etc/pip.conf\n[global]\nindex-url = https://%s:%s@%s/repository/pypi/simple\ntrusted-host = %s\ntimeout = 60\n" % (ch(["ci-reader", "jenkins"]), c.S(pw, "password", lambda x: urllib.parse.quote(x, safe="")), "nexus." + ch(DOMAINS), "nexus." + ch(DOMAINS))
    if sub == 3:
        pw = ch([pw_any(), rs(8) + "&" + rs(8)])
        return "<settings xmlns=\"http://maven.apache.org/SETTINGS/1.0.0\">\n  <servers>\n    <server>\n      <id>releases</id>\n      <username>deployer</username>\n      <password>%s</password>\n    </server>\n    <server>\n      <id>github</id>\n      <username>%s</username>\n      <password>%s</password>\n    </server>\n  </servers>\n  <mirrors>\n    <mirror><id>central</id><url>https://repo1.maven.org/maven2</url><mirrorOf>central</mirrorOf></mirror>\n  </mirrors>\n</settings>" % (
            c.S(pw, "password", lambda x: html.escape(x, quote=False)), ch(["octocat-ci", "build-bot"]), c.S(gh_token(), "github_token"))
    if sub == 4:
        return "# gradle.properties\norg.gradle.jvmargs=-Xmx4g -Dfile.encoding=UTF-8\norg.gradle.parallel=true\nsigning.keyId=%s\nsigning.password=%s\nsigning.secretKeyRingFile=/home/%s/.gnupg/secring.gpg\nossrhUsername=%s\nossrhPassword=%s\nsonatypeToken=%s\n" % (
            c.D(rs(8, "0123456789ABCDEF"), "gpg_key_id"), c.S(pw_any(), "password"), c.P(ch(NAMES["en"])[1].split(".")[0], "username_in_path"), ch(["acme-release"]), c.S(pw_any(), "password"), c.S(rs(44, B64U), "api_key"))
    if sub == 5:
        return "$ cat ~/.netrc\nmachine api.heroku.com\n  login %s\n  password %s\nmachine github.com\n  login x-access-token\n  password %s\nmachine ftp.%s login upload password %s\n" % (
            c.P(person(c.lang)[2], "email"), c.S(heroku(), "heroku_api_key"), c.S(gh_token("ghs_"), "github_token"), ch(DOMAINS), c.S(pw_human(), "ftp_password"))
    if sub == 6:
        return "$ printf 'protocol=https\\nhost=%s\\n' | git credential fill\nprotocol=https\nhost=%s\nusername=%s\npassword=%s\n$ git config --global credential.helper\nstore\n$ cat ~/.git-credentials\nhttps://%s:%s@gitlab.com\n" % (
            "github.com", "github.com", ch(["oauth2", "x-access-token", "octocat"]), c.S(gh_token("gho_"), "github_token"), ch(["oauth2", "gitlab-ci-token"]), c.S(gitlab(), "gitlab_token"))
    u = ch(NAMES[ch(LANGS[:9])])[1].split(".")[0]
    return "# ~/.ssh/config\nHost bastion\n  HostName %s\n  User ec2-user\n  IdentityFile /home/%s/.ssh/id_ed25519\n  ForwardAgent yes\n\nHost db-tunnel\n  HostName %s\n  ProxyJump bastion\n  LocalForward 5432 %s:5432\n\n$ cat ~/.ssh/id_ed25519.pub\n%s\n$ ssh-keygen -lf ~/.ssh/id_ed25519\n256 %s %s@laptop (ED25519)\n" % (
        c.D(pub_ip(), "server_ip"), c.P(u, "username_in_path"), c.D(priv_ip(), "private_ip"), ch(HOSTS), c.D(ssh_pub(), "ssh_public_key"), c.D(ssh_fp(), "ssh_fingerprint"), u) + ("\n$ cat ~/.ssh/id_ed25519\n" + c.pem(pem("OPENSSH PRIVATE KEY"), "ssh_private_key") if R.random() < .5 else "")

@style("service_units")
def st_units(c):
    sub = ri(0, 3)
    if sub == 0:
        env = ["Environment=%s=%s" % kv for kv in cfg_noise(c, "env", 2)]
        for _ in range(ri(1, 3)):
            e, v, k = c.vend(); env.append("Environment=\"%s=%s\"" % (e, v) if " " in v else "Environment=%s=%s" % (e, v))
        return "$ systemctl cat %s.service\n# /etc/systemd/system/%s.service\n[Unit]\nDescription=%s\nAfter=network-online.target\n\n[Service]\nType=simple\nUser=app\nWorkingDirectory=/opt/%s\n%s\nEnvironmentFile=-/etc/default/%s\nExecStart=/opt/%s/bin/server --port %d\nRestart=on-failure\nRestartSec=5\n\n[Install]\nWantedBy=multi-user.target\n" % (
            "billing", "billing", "Billing API", "billing", "\n".join(env), "billing", "billing", ch([8080, 9000]))
    if sub == 1:
        return "server {\n    listen 443 ssl http2;\n    server_name %s;\n    ssl_certificate     /etc/letsencrypt/live/%s/fullchain.pem;\n    ssl_certificate_key /etc/letsencrypt/live/%s/privkey.pem;\n\n    location /api/ {\n        proxy_pass http://%s:8080;\n        proxy_set_header Authorization \"Bearer %s\";\n        proxy_set_header X-Request-Id $request_id;\n    }\n    location /admin {\n        auth_basic \"restricted\";\n        auth_basic_user_file /etc/nginx/.htpasswd;\n    }\n}\n" % (
            (d := "app." + ch(DOMAINS)), d, d, c.D(priv_ip(), "private_ip"), c.S(ch([rs(40), jwt()]), "bearer_token"))
    if sub == 2:
        return "<VirtualHost *:443>\n    ServerName %s\n    SetEnv DB_PASS \"%s\"\n    SetEnv APP_KEY %s\n    ProxyPass / http://127.0.0.1:8000/\n    ErrorLog ${APACHE_LOG_DIR}/error.log\n</VirtualHost>\n" % ("www." + ch(DOMAINS), c.S(pw_any(), "password"), c.S("base64:" + base64.b64encode(R.randbytes(32)).decode(), "encryption_key"))
    pw = pw_urlsafe()
    return "$ crontab -l\n# m h  dom mon dow   command\nMAILTO=%s\n*/5 * * * * /usr/local/bin/healthcheck.sh >/dev/null 2>&1\n0 3 * * * PGPASSWORD='%s' pg_dump -h %s -U backup app | gzip > /backups/app-$(date +\\%%F).sql.gz\n30 2 * * 0 curl -fsS -u admin:%s https://%s/api/reindex\n15 * * * * AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s aws s3 sync /var/log/app s3://%s-logs/\n" % (
        c.D(ch(ROLE_MAIL) + ch(DOMAINS), "role_mailbox"), c.S(pw_any().replace("'", ""), "password"), ch(HOSTS), c.S(pw, "password"), ch(HOSTS), c.S(aws_akid(), "aws_access_key_id"), c.S(aws_secret(), "aws_secret_access_key"), ch(["acme", "globex"]))

@style("terraform")
def st_tf(c):
    if R.random() < .5:
        pw = pw_gen(); acct = aws_acct()
        st = {"version": 4, "terraform_version": version(), "serial": ri(1, 400), "lineage": c.D(uuid4(), "uuid"), "outputs": {"db_endpoint": {"value": ch(HOSTS), "type": "string"}},
              "resources": [{"mode": "managed", "type": "aws_db_instance", "name": "main", "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]", "instances": [{"schema_version": 2, "attributes": {
                  "arn": c.D("arn:aws:rds:eu-west-1:%s:db:main" % acct, "arn"), "username": "dbadmin", "password": "PWP", "engine": "postgres", "engine_version": "16.3", "port": 5432, "storage_encrypted": True}, "sensitive_attributes": [[{"type": "get_attr", "value": "password"}]]}]},
                  {"mode": "managed", "type": "random_password", "name": "api", "instances": [{"attributes": {"id": "none", "length": 32, "special": True, "result": "RP"}}]},
                  {"mode": "managed", "type": "aws_iam_access_key", "name": "ci", "instances": [{"attributes": {"id": "IDP", "secret": "SKP", "status": "Active", "user": "ci"}}]}]}
        s = json.dumps(st, indent=2)
        s = s.replace('"PWP"', '"%s"' % c.S(pw, "password", lambda x: jesc(x, True))).replace('"RP"', '"%s"' % c.S(pw_gen(), "password", lambda x: jesc(x, True)))
        s = s.replace('"IDP"', '"%s"' % c.S(aws_akid(), "aws_access_key_id")).replace('"SKP"', '"%s"' % c.S(aws_secret(), "aws_secret_access_key"))
        return ch(["$ terraform state pull\n", "$ cat terraform.tfstate\n", "$ aws s3 cp s3://tfstate-%s/prod/terraform.tfstate - \n" % acct]) + s
    pw = pw_any()
    return "$ terraform plan -out tfplan\n\nTerraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:\n  + create\n  ~ update in-place\n\nTerraform will perform the following actions:\n\n  # aws_ssm_parameter.stripe will be created\n  + resource \"aws_ssm_parameter\" \"stripe\" {\n      + arn       = (known after apply)\n      + name      = \"/prod/stripe/secret\"\n      + type      = \"SecureString\"\n      + value     = (sensitive value)\n    }\n\n  # kubernetes_secret.app will be updated in-place\n  ~ resource \"kubernetes_secret\" \"app\" {\n      ~ data = {\n          ~ \"API_KEY\" = \"%s\" -> \"%s\"\n            # (2 unchanged elements hidden)\n        }\n        id = \"prod/app\"\n    }\n\n  # module.db.aws_db_instance.this will be updated in-place\n  ~ resource \"aws_db_instance\" \"this\" {\n      ~ password = (sensitive value)\n        id       = \"%s\"\n    }\n\nPlan: 1 to add, 2 to change, 0 to destroy.\n\n# " % (
        c.S(inhouse_key(), "api_key"), c.S(inhouse_key(), "api_key"), "db-" + rs(26, string.ascii_uppercase + string.digits)) + prose(c, ["note"]) + ": terraform.tfvars -> db_password = \"%s\"" % c.S(pw, "password")

@style("pulumi_ansible")
def st_pa(c):
    if R.random() < .5:
        return "$ pulumi config --show-secrets\nKEY                         VALUE\naws:region                  %s\n%s:dbPassword              %s\n%s:githubToken             %s\n%s:replicas                %d\n\n$ cat Pulumi.prod.yaml\nencryptionsalt: %s\nconfig:\n  aws:region: %s\n  %s:dbPassword:\n    secure: %s\n" % (
            (rg := ch(["eu-central-1", "us-west-2"])), (p := ch(["infra", "platform"])), c.S(pw_any(), "password"), p, c.S(gh_token(), "github_token"), p, ri(1, 6), c.S("v1:" + rs(16, B64) + ":" + rs(44, B64), "encryption_salt"), rg, p, c.D("v1:" + rs(16, B64) + ":" + rs(60, B64), "pulumi_ciphertext"))
    vault_hdr = "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(rs(80, HEX) for _ in range(3))
    c.D(vault_hdr.split("\n")[1], "ansible_vault_ciphertext")
    return "$ cat group_vars/prod/vault.yml\n%s\n...\n$ ansible-vault view group_vars/prod/vault.yml\nVault password: \n---\nvault_db_password: %s\nvault_smtp_password: \"%s\"\nvault_api_tokens:\n  datadog: %s\n  slack: %s\nvault_admin_users:\n  - name: %s\n    email: %s\n" % (
        vault_hdr, c.S(pw_any().replace(":", "").replace("#", ""), "password"), c.S(pw_any(), "smtp_password"), c.S(dd_api(), "datadog_api_key"), c.S(slack_bot(), "slack_token"), c.name()[0], c.P(person(c.lang)[2], "email"))

@style("ci_log")
def st_ci(c):
    sub = ri(0, 3); L = []
    t0 = lambda: ts()
    if sub == 0:
        L += ["%s ##[group]Run actions/checkout@v4" % t0(), "%s with:" % t0(), "%s   repository: %s/%s" % (t0(), ch(["acme", "globex"]), ch(["api", "web"])), "%s   token: ***" % t0(), "%s ##[endgroup]" % t0()]
        c.D("token: ***", "masked_or_placeholder")
        L += ["%s ##[group]Run ./scripts/deploy.sh" % t0(), "%s env:" % t0(), "%s   AWS_ACCESS_KEY_ID: ***" % t0(), "%s   AWS_SECRET_ACCESS_KEY: ***" % t0(), "%s ##[endgroup]" % t0()]
        e, v, k = vendor()
        L += ["%s + echo \"debug: using %s=%s\"" % (t0(), e, c.S(v, k, env=e)), "%s debug: using %s=%s" % (t0(), e, v if not c.nosec else "***")]
        if R.random() < .5:
            # base64 wrapped -> not masked by runner
            pw = pw_any(); L.append("%s + echo %s | base64 -d > .env" % (t0(), c.S(pw, "password", b64e)))
        L += ["%s Deploying %s to %s" % (t0(), c.D(sha1(), "commit_sha"), ch(["production", "staging"])), "%s ##[error]Process completed with exit code %d." % (t0(), ch([1, 2, 127]))]
    elif sub == 1:
        L += ["Running with gitlab-runner %s (%s)" % (version(), c.D(short_sha(), "commit_sha")), "  on docker-runner-%d %s, system ID: s_%s" % (ri(1, 9), rs(8, string.ascii_lowercase + string.digits), rs(12, HEX)), "Preparing the \"docker\" executor",
              "Using docker image %s for %s ..." % (c.D(digest(), "image_digest"), "node:20-alpine"), "$ npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}", "$ echo \"//gitlab.com/api/v4/projects/%d/packages/npm/:_authToken=%s\" >> .npmrc" % (ri(1000, 99999999), c.S(gitlab(), "gitlab_token")),
              "$ npm ci", "added %d packages in %ds" % (ri(200, 1500), ri(5, 90)), "$ curl --fail -H \"PRIVATE-TOKEN: [MASKED]\" https://gitlab.com/api/v4/projects", "ERROR: Job failed: exit code 1"]
        c.D("[MASKED]", "masked_or_placeholder")
    elif sub == 2:
        pw = pw_any()
        L += ["Started by user %s" % c.P(c.name(label=False)[0], "person_name"), "Running in Durability level: MAX_SURVIVABILITY", "[Pipeline] withCredentials", "Masking supported pattern matches of $DOCKER_PASS", "[Pipeline] {", "[Pipeline] sh",
              "+ docker login -u deploy -p **** registry.%s" % ch(DOMAINS), "WARNING! Using --password via the CLI is insecure. Use --password-stdin.", "Login Succeeded", "[Pipeline] sh", "+ set -x", "+ export MYSQL_PWD=%s" % c.S(pw, "password"),
              "+ mysql -h %s -u root -e 'SELECT 1'" % ch(HOSTS), "[Pipeline] }", "Finished: FAILURE"]
    else:
        L += ["#!/bin/bash -eo pipefail", "echo $GCLOUD_SERVICE_KEY | base64 -d > key.json", "gcloud auth activate-service-account --key-file key.json", "Activated service account credentials for: [%s]" % c.D("ci@%s.iam.gserviceaccount.com" % ch(["acme-prod", "shop-ml"]), "service_account_email"),
              "curl -s -X POST https://circleci.com/api/v2/project/gh/acme/api/envvar -H \"Circle-Token: %s\" -d '{\"name\":\"SENTRY_AUTH_TOKEN\",\"value\":\"%s\"}'" % (c.S(rs(40, HEX), "circleci_token"), c.S(sentry_tok(), "sentry_auth_token")), "{\"name\":\"SENTRY_AUTH_TOKEN\",\"value\":\"xxxx%s\"}" % rs(4, HEX), "", "Exited with code exit status 1"]
    noise = log_noise(ri(0, 3)).split("\n") if R.random() < .5 else []
    if noise: L[ri(1, len(L) - 1):ri(1, len(L) - 1)] = noise
    return "\n".join(L) + ("\n\n" + prose(c, ["fail", "help"]) if R.random() < .5 else "")

@style("stack_trace")
def st_trace(c):
    sub = ri(0, 4); host = ch(HOSTS)
    pw = pw_urlsafe()
    if sub == 0:
        return "%s ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed\norg.springframework.beans.factory.BeanCreationException: Error creating bean with name 'dataSource'\nCaused by: org.postgresql.util.PSQLException: FATAL: password authentication failed for user \"orders\"\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)\n\tat org.postgresql.Driver.connect(Driver.java:%d)\n\tat com.zaxxer.hikari.pool.PoolBase.newConnection(PoolBase.java:359)\n\t... 47 common frames omitted\nHikariPool-1 - jdbcUrl=jdbc:postgresql://%s:5432/orders?user=orders&password=%s&ssl=true\n" % (ts(), ri(200, 400), host, c.S(pw, "password", lambda x: urllib.parse.quote(x, safe="")))
    if sub == 1:
        return "panic: failed to connect to `host=%s user=app database=app`: failed SASL auth (FATAL: password authentication failed for user \"app\" (SQLSTATE 28P01))\n\ngoroutine 1 [running]:\nmain.mustDB({0xc000124000, 0x%x})\n\t/src/cmd/api/main.go:%d +0x1a5\nmain.main()\n\t/src/cmd/api/main.go:42 +0x8c\nexit status 2\n\n# dsn was: postgres://app:%s@%s:5432/app?sslmode=disable\n" % (host, ri(40, 200), ri(50, 200), c.S(pw, "password", lambda x: urllib.parse.quote(x, safe="")), host)
    if sub == 2:
        e, v, k = vendor()
        return "Traceback (most recent call last):\n  File \"/home/%s/proj/app/client.py\", line %d, in fetch\n    r.raise_for_status()\n  File \"/usr/lib/python3/dist-packages/requests/models.py\", line 1024, in raise_for_status\n    raise HTTPError(http_error_msg, response=self)\nrequests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.%s/v1/items?api_key=%s&page=2\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"/home/%s/proj/app/main.py\", line 12, in <module>\nRuntimeError: headers={'Authorization': 'Bearer %s', 'User-Agent': 'python-requests/2.32.3'}\n" % (
            (u := c.P(ch(NAMES[c.lang] if c.lang in ("en", "de", "fr", "es", "it", "nl", "pt", "id", "tr", "pl", "vi") else NAMES["en"])[1].split(".")[0], "username_in_path")), ri(20, 300), ch(DOMAINS), c.S(inhouse_key(), "api_key"), u, c.S(v, k, env=e))
    if sub == 3:
        return "thread 'main' panicked at src/main.rs:%d:%d:\ncalled `Result::unwrap()` on an `Err` value: Io(Custom { kind: Other, error: \"redis://:%s@%s:6379/0: Connection refused (os error 111)\" })\nstack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n   2: core::result::unwrap_failed\n   3: worker::main\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n" % (ri(10, 300), ri(1, 80), c.S(rs(ri(16, 32)), "password"), host)
    return "Unhandled exception. System.InvalidOperationException: Cannot connect to SMTP server.\n ---> MailKit.Security.AuthenticationException: 535: 5.7.8 Username and Password not accepted\n   at MailKit.Net.Smtp.SmtpClient.AuthenticateAsync(Encoding encoding, ICredentials credentials)\n   at Notifications.EmailSender.SendAsync(String to) in /src/Notifications/EmailSender.cs:line %d\n   --- End of inner exception stack trace ---\nConfig dump: Smtp:Host=smtp.%s; Smtp:User=%s; Smtp:Password=%s; Smtp:Port=587\n   at Program.<Main>$(String[] args) in /src/Program.cs:line 31\n" % (
        ri(20, 200), ch(DOMAINS), c.D(ch(ROLE_MAIL) + ch(DOMAINS), "role_mailbox"), c.S(pw_any(), "smtp_password"))

@style("http_dump")
def st_http(c):
    host = "api." + ch(DOMAINS); sub = ri(0, 2)
    if sub == 0:
        e, v, k = vendor(); tok = c.S(v, k, env=e)
        L = ["$ curl -v https://%s/v1/me -H 'Authorization: Bearer %s'" % (host, tok), "*   Trying %s:443..." % c.D(pub_ip(), "server_ip"), "* Connected to %s (%s) port 443" % (host, "..."), "* ALPN: server accepted h2", "* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256",
             "> GET /v1/me HTTP/2", "> Host: %s" % host, "> User-Agent: curl/8.%d.0" % ri(1, 11), "> Accept: */*", "> Authorization: Bearer %s" % tok, ">", "< HTTP/2 200", "< content-type: application/json", "< x-request-id: %s" % c.D(uuid4(), "request_id"),
             "< set-cookie: session=%s; Path=/; HttpOnly; Secure; SameSite=Lax" % c.S(session_cookie(), "session_cookie"), "< strict-transport-security: max-age=31536000", "<"]
        n, r, em = person(c.lang)
        L.append(json.dumps({"id": ri(1, 99999), "name": c.P(n, "person_name", lambda x: jesc(x, True)), "email": c.P(em, "email")}, ensure_ascii=True).replace("\\\\u", "\\u"))
        return "\n".join(L)
    if sub == 1:
        u = ch(["admin", "deploy", "api"]); pw = pw_any()
        basic = base64.b64encode(("%s:%s" % (u, pw)).encode()).decode()
        if c.nosec: sh = c.D(base64.b64encode(b"user:<password>").decode(), "base64_nonsecret")
        else: c.secrets.append({"value": pw, "kind": "password", "shown": basic}); sh = basic
        return "$ http -v POST %s/v2/reports Authorization:'Basic %s' period=monthly\nPOST /v2/reports HTTP/1.1\nAccept: application/json, */*;q=0.5\nAccept-Encoding: gzip, deflate\nAuthorization: Basic %s\nConnection: keep-alive\nContent-Length: 21\nContent-Type: application/json\nHost: %s\nUser-Agent: HTTPie/3.2.%d\n\n{\n    \"period\": \"monthly\"\n}\n\n\nHTTP/1.1 403 Forbidden\nContent-Type: application/problem+json\nDate: Tue, 03 Nov 2026 10:%02d:%02d GMT\nX-Trace-Id: %s\n\n{\n    \"title\": \"Forbidden\",\n    \"status\": 403,\n    \"code\": \"E_SCOPE_MISSING\"\n}\n" % (host, sh, sh, host, ri(1, 4), ri(0, 59), ri(0, 59), c.D(trace_id(), "trace_id"))
    ck = c.S(session_cookie(), "session_cookie"); cs = c.S(rs(32, HEX), "csrf_token")
    return "$ curl -sS -i -X POST 'https://%s/login' --data-urlencode 'email=%s' --data-urlencode 'password=%s'\nHTTP/1.1 302 Found\nServer: nginx\nLocation: /dashboard\nSet-Cookie: _app_session=%s; path=/; secure; HttpOnly; SameSite=Lax\nSet-Cookie: XSRF-TOKEN=%s; path=/; secure\nX-Runtime: 0.%06d\n" % (
        host, c.P(person(c.lang)[2], "email"), c.S(pw_any(), "password"), ck, cs, ri(0, 999999))

@style("api_client_export")
def st_postman(c):
    if R.random() < .5:
        e, v, k = vendor(); pw = pw_any()
        coll = {"info": {"_postman_id": c.D(uuid4(), "uuid"), "name": ch(["Billing API", "Partner API v2"]), "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
                "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "TOKP", "type": "string"}]},
                "item": [{"name": "Login", "request": {"method": "POST", "url": {"raw": "{{baseUrl}}/auth/login", "host": ["{{baseUrl}}"], "path": ["auth", "login"]},
                          "body": {"mode": "raw", "raw": "{\n  \"username\": \"EMP\",\n  \"password\": \"PWP\"\n}"}}},
                         {"name": "List invoices", "request": {"method": "GET", "header": [{"key": "X-Api-Key", "value": "{{apiKey}}"}], "url": "{{baseUrl}}/invoices?limit=50"}}],
                "variable": [{"key": "baseUrl", "value": "https://api.%s" % ch(DOMAINS)}, {"key": "apiKey", "value": "AKP"}]}
        s = json.dumps(coll, indent="\t")
        em = person(c.lang)[2]
        s = s.replace("TOKP", c.S(v, k, env=e)).replace("AKP", c.S(inhouse_key(), "api_key")).replace("EMP", c.P(em, "email")).replace("PWP", c.S(pw, "password", lambda x: jesc(jesc(x, False), False)))
        return s
    e, v, k = vendor(); ck = session_cookie()
    har = {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [{"startedDateTime": ts(), "time": R.random() * 400, "request": {"method": "GET", "url": "https://app.%s/api/account" % ch(DOMAINS), "httpVersion": "http/2.0",
          "headers": [{"name": "authorization", "value": "Bearer TOKP"}, {"name": "cookie", "value": "sid=CKP; theme=dark; _ga=GA1.1.%d.%d" % (ri(10**8, 10**9), ri(10**9, 2 * 10**9))}, {"name": "x-request-id", "value": "RIDP"}], "queryString": [], "cookies": []},
          "response": {"status": 200, "statusText": "", "headers": [{"name": "content-type", "value": "application/json"}], "content": {"size": 312, "mimeType": "application/json", "text": "CONTENTP"}}, "timings": {"send": 0.2, "wait": 120.5, "receive": 1.1}}]}}
    s = json.dumps(har, indent=2)
    n, r, em = person(c.lang)
    inner = json.dumps({"name": n, "email": em, "phone": "PHP", "iban": "IBP"}, ensure_ascii=False)
    ib = iban(LANG_CC.get(c.lang)); ph = phone(c.lang)
    inner = inner.replace("PHP", ph).replace("IBP", ib)
    inner_esc = json.dumps(inner, ensure_ascii=R.random() < .5)[1:-1]
    s = s.replace("TOKP", c.S(v, k, env=e)).replace("CKP", c.S(ck, "session_cookie")).replace("RIDP", c.D(uuid4(), "request_id")).replace("CONTENTP", inner_esc)
    c.P(n, "person_name", lambda x: jesc(jesc(x, "\\\\u" in inner_esc or "\\u" in inner_esc), False) if False else json.dumps(json.dumps(x, ensure_ascii=False)[1:-1], ensure_ascii="\\u" in inner_esc)[1:-1])
    c.P(em, "email"); c.P(ph, "phone"); c.P(ib, "iban")
    return ch(["$ jq '.log.entries[0]' app.har\n", "HAR excerpt (Chrome DevTools → Save all as HAR):\n"]) + s

@style("structured_logs")
def st_logs(c):
    L = []; fmt = ch(["logfmt", "json"])
    for i in range(ri(6, 16)):
        kind = ri(0, 6)
        f = {"ts": ts(), "level": ch(["info", "debug", "warn", "error"]), "svc": ch(["auth", "billing", "gateway"]), "trace_id": c.D(trace_id(), "trace_id") if R.random() < .3 else trace_id(), "span_id": span_id()}
        if kind == 0:
            n, r, e = person(c.lang); f.update(msg="login ok", user=c.P(e, "email"), ip=c.P(pub_ip(), "end_user_ip"))
        elif kind == 1:
            e, v, k = vendor(); f.update(msg="outbound request", url="https://api.%s/v1/charge" % ch(DOMAINS), headers="Authorization=Bearer " + c.S(v, k, env=e))
        elif kind == 2:
            f.update(msg="token refreshed", token_ttl=ch([3600, 900]), token=c.D(masked(), "masked_or_placeholder"))
        elif kind == 3:
            f.update(msg="db connect", dsn="postgres://app:%s@%s/app" % (c.S(pw_urlsafe(), "password"), ch(HOSTS)))
        elif kind == 4:
            f.update(msg="request", method="GET", path="/v1/orders/%s" % c.D(order_no().lstrip("#"), "order_number"), status=ch([200, 404, 500]), dur_ms=ri(1, 900))
        else:
            f.update(msg="cache set", key="rate:%s" % rs(8, HEX), ttl=60)
        if fmt == "json":
            L.append(json.dumps(f, ensure_ascii=False))
        else:
            L.append(" ".join("%s=%s" % (k, ('"%s"' % v) if isinstance(v, str) and " " in v else v) for k, v in f.items()))
    return ch(["$ kubectl logs deploy/%s --since=10m | tail -n 40\n" % ch(["auth", "gateway"]), "$ journalctl -u billing -o cat -n 30\n", prose(c, ["full"]) + "\n"]) + "\n".join(L)

@style("chat_thread")
def st_chat(c):
    people = [c.name(label=R.random() < .8) for _ in range(ri(2, 4))]
    sub = ri(0, 2); L = []
    for i in range(ri(3, 7)):
        n = people[i % len(people)][0]; tm = "%d:%02d %s" % (ri(1, 12), ri(0, 59), ch(["AM", "PM"])) if sub == 0 else "%02d:%02d" % (ri(8, 19), ri(0, 59))
        j = ri(0, 5)
        if j == 0: msg = prose(c, ["fail"])
        elif j == 1:
            e, v, k = vendor(); msg = "%s `%s=%s`" % (ch(["try with this:", "here, use", "new one:", "->"]), e, c.S(v, k, env=e))
        elif j == 2: msg = prose(c, ["help"]) + " " + ch(["https://grafana.%s/d/%s" % (ch(DOMAINS), rs(9)), "trace %s" % c.D(trace_id(), "trace_id"), "commit %s" % c.D(short_sha(), "commit_sha")])
        elif j == 3: msg = ch(["pw for staging admin: ", "mot de passe: ", "password: ", "パスワード: ", "密码：", "пароль: "]) + c.S(pw_any(), "password")
        elif j == 4: msg = prose(c, ["rotate"]) + " " + ch(["(ttl=%ds)" % ch([3600, 900]), "", ":+1:"])
        else: msg = "%s %s, %s" % (ch(["cc", "ping", "@"]), people[(i + 1) % len(people)][0], prose(c, ["thanks"]))
        if sub == 0: L.append("%s  %s\n%s" % (n, tm, msg))
        elif sub == 1: L.append("[%s] %s: %s" % (tm, n, msg))
        else: L.append("**%s** — %s\n> %s" % (n, tm, msg))
    hdr = ch(["#incident-%d" % ri(100, 999), "Thread in #backend", "Teams — %s" % ch(["Platform", "Ops"]), "Discord · #dev-help", ""])
    if R.random() < .3:
        url = "https://hooks.slack.com/services/T%s/B%s/%s" % (rs(8, UPDIG), rs(10, UPDIG), c.S(slack_hook_secret(), "slack_webhook_secret"))
        L.append("%s  %s\nwebhook for alerts: %s" % (people[0][0], "now", url))
    for p in people:
        if p[0] in "\n".join(L) and not any(x["value"] == p[0] for x in c.pii): c.P(p[0], "person_name")
    return hdr + "\n" + "\n\n".join(L)

@style("support_email")
def st_email(c):
    n, r, e = person(c.lang); agent = c.name(label=True)
    body = [("From: %s <%s>" % (c.P(n, "person_name"), c.P(e, "email"))) if R.random() < .7 else "From: %s" % c.P(e, "email"), "To: %s" % c.D(ch(ROLE_MAIL) + ch(DOMAINS), "role_mailbox"),
            "Subject: %s %s" % (ch(["Re:", "Fwd:", "[Ticket #%d]" % ri(10000, 999999)]), ch(["Problem mit Rechnung", "cannot log in", "アカウントについて", "Atualização de cadastro", "Обновление данных"])), "Date: %s" % ts(), ""]
    body.append(prose(c, ch([["customer"], ["customer", "help"], ["fail", "help"]])))
    items = ri(3, 6); lines = []
    for _ in range(items):
        j = ri(0, 6)
        if j == 0: lines.append("%s: %s" % (ch(["Phone", "Tel.", "Telefon", "電話", "Телефон", "Teléfono"]), c.P(phone(c.lang), "phone")))
        elif j == 1: lines.append("%s: %s" % (ch(["Address", "Adresse", "Endereço", "住所", "Адрес", "Dirección"]), c.P(address(c.lang), "postal_address")))
        elif j == 2: lines.append("%s: %s" % (ch(["DOB", "Geburtsdatum", "生年月日", "Data de nascimento", "Fecha de nacimiento"]), c.P(dob(c.lang), "date_of_birth")))
        elif j == 3:
            k, v = natid(ch([c.lang, c.lang, ch(LANGS)])); lines.append("%s: %s" % (ch(["ID", "National ID", "Ausweis-Nr.", "身分證", "CPF/ID", "Kimlik No"]), c.P(v, k)))
            if R.random() < .5: lines.append("%s: %s" % (ch(["Passport", "Reisepass", "Passaporte", "旅券番号", "Pasaporte"]), c.P(passport(), "passport_number")))
            if R.random() < .3: lines.append("%s: %s" % (ch(["Driving licence", "Führerschein-Nr.", "CNH"]), c.P(driver_lic(), "driving_licence_number")))
        elif j == 4: lines.append("IBAN: %s" % c.P(iban(LANG_CC.get(c.lang)), "iban"))
        elif j == 5: lines.append("%s: %s" % (ch(["Order", "Bestellung", "注文番号", "Pedido"]), c.D(order_no(), "order_number")))
        else: lines.append("%s: %s" % (ch(["Card", "Karte", "Cartão"]), c.P(card(), "credit_card")))
    body += lines
    if R.random() < .35:
        body.append("%s: %s" % (ch(["my password is", "mein altes Passwort war", "senha temporária", "временный пароль"]), c.S(pw_human(), "password")))
    body += ["", T(c.lang, "regards"), n if R.random() < .5 else c.P(n.split()[0], "person_name"), "", "-- ", "%s | %s" % (agent[0], ch(COMPANIES)), "%s | %s" % (c.P(phone(c.lang), "phone"), c.D("https://www." + ch(DOMAINS), "url"))]
    return "\n".join(body)

@style("csv_export")
def st_csv(c):
    sub = ch([0, 0, 1, 2]); rows = []
    if sub == 0:
        hd = ["employee_id", "full_name", "email", "phone", "date_of_birth", "national_id", "iban", "salary"]
        for _ in range(ri(3, 9)):
            n, r, e = person(c.lang); k, v = natid(ch([c.lang, c.lang, ch(LANGS)]))
            rows.append([str(ri(10000, 99999)), c.P(n, "person_name"), c.P(e, "email"), c.P(phone(c.lang), "phone"), c.P(dob(c.lang), "date_of_birth"), c.P(v, k), c.P(iban(LANG_CC.get(c.lang)), "iban"), str(ri(30000, 150000))])
    elif sub == 1:
        hd = ["Account", "Contact", "Email", "Phone", "Stage", "Owner", "Last Activity"]
        for _ in range(ri(3, 9)):
            n, r, e = person(c.lang)
            rows.append([ch(COMPANIES), c.P(n, "person_name"), c.P(e, "email"), c.P(phone(c.lang), "phone"), ch(["Qualified", "Closed Won", "Negotiation"]), c.P(person(c.lang)[0], "person_name"), date()])
    else:
        hd = ["customer_id", "name", "address", "card_number", "exp", "last_login_ip", "signup"]
        for _ in range(ri(3, 8)):
            n, r, e = person(c.lang)
            rows.append([c.D(uuid4(), "uuid"), c.P(n, "person_name"), c.P(address(c.lang), "postal_address"), c.P(card(), "credit_card"), "%02d/%02d" % (ri(1, 12), ri(27, 31)), c.P(pub_ip(), "end_user_ip"), date()])
    sep = ch([",", ";", "\t"])
    q = lambda x: '"%s"' % x.replace('"', '""') if (sep in x or '"' in x or "," in x) else x
    out = sep.join(hd) + "\n" + "\n".join(sep.join(q(x) for x in r) for r in rows)
    return ch(["$ head -n 12 export_%s.csv\n" % date(), prose(c, ["customer"]) + "\n\n", ""]) + out

@style("invoice_shipping")
def st_invoice(c):
    n, r, e = person(c.lang)
    if R.random() < .5:
        lines = ["INVOICE %s" % c.D(order_no().replace("#", "INV-"), "order_number"), "%s" % ch(COMPANIES), "VAT ID: %s" % c.D(ch(["DE", "FR", "NL", "IT"]) + str(ri(10**8, 10**9)), "company_vat_id"), "", "Bill to:", c.P(n, "person_name"), c.P(address(c.lang), "postal_address"), c.P(e, "email"), ""]
        tot = 0
        for _ in range(ri(1, 5)):
            p = ri(5, 900) + ri(0, 99) / 100; q = ri(1, 5); tot += p * q; lines.append("%-12s %-28s %3d x %9.2f" % (c.D(sku(), "sku"), ch(["USB-C Hub", "Ergonomic chair", "Cloud plan (annual)", "Support hours"]), q, p))
        lines += ["", "Total: %.2f %s" % (tot, ch(["EUR", "USD", "JPY", "BRL"])), "Payment: %s" % ch(["card " + c.P(card(), "credit_card"), "SEPA " + c.P(iban(LANG_CC.get(c.lang)), "iban"), "card ending %s" % rs(4, string.digits)]), "Due: %s" % date()]
        return "\n".join(lines)
    return "\n".join(["SHIP TO:", c.P(n, "person_name"), c.P(address(c.lang), "postal_address"), "Tel: %s" % c.P(phone(c.lang), "phone"), "", "FROM: %s, %s" % (ch(COMPANIES), c.D(ch(ROLE_MAIL) + ch(DOMAINS), "role_mailbox")),
                      "Tracking: %s" % c.D(ch(["1Z" + rs(16, UPDIG), "JD0" + rs(15, string.digits), "LX" + rs(9, string.digits) + "DE"]), "tracking_number"), "Weight: %.1f kg  Dim: %dx%dx%d cm" % (R.random() * 20, ri(10, 80), ri(10, 80), ri(5, 40)), "Order: %s" % c.D(order_no(), "order_number"), "Customs: %s" % ch(["HS 8471.30", "HS 9403.30"])])

@style("medical_record")
def st_med(c):
    n, r, e = person(c.lang); k, v = natid(c.lang)
    L = ["%s: %s" % (ch(["Patient", "Paciente", "Patient(in)", "患者", "Пациент", "환자"]), c.P(n, "person_name")), "%s: %s" % ("MRN", c.P(mrn(), "medical_record_number")), "DOB: %s" % c.P(dob(c.lang), "date_of_birth"),
         "ID: %s" % c.P(v, k), "Insurance: %s / policy %s" % (ch(["AOK", "Allianz", "Unimed", "SulAmérica", "Aetna", "BUPA"]), c.P(rs(3, string.ascii_uppercase) + str(ri(10**8, 10**9)), "insurance_policy_number")),
         "Phone: %s" % c.P(phone(c.lang), "phone"), "Address: %s" % c.P(address(c.lang), "postal_address"), "", "Visit %s — %s" % (date(), ch(["follow-up", "Kontrolle", "初診", "consulta"])),
         "Dx: %s (ICD-10 %s)" % (ch(["Type 2 diabetes", "Hypertension", "Asthma"]), c.D(ch(["E11.9", "I10", "J45.909"]), "icd_code")), "Rx: %s %dmg" % (ch(["Metformin", "Lisinopril", "Salbutamol"]), ch([5, 10, 500])), "Attending: Dr. %s" % c.P(person(c.lang)[0], "person_name")]
    if R.random() < .4: L.append("Portal login: %s / %s" % (e, c.S(pw_human(), "password"))); c.P(e, "email")
    return ch(["", "Export from EHR (%s)\n" % ch(["FHIR bundle summary", "HL7 ADT^A08"])]) + "\n".join(L)

def tool_output(c):
    """a random command + output with labels, used inside agent transcripts"""
    j = ri(0, 5)
    if j == 0:
        lines = ["%s=%s" % kv for kv in cfg_noise(c, "env", ri(2, 4))]
        for _ in range(ri(1, 3)):
            e, v, k = c.vend(); lines.append("%s=%s" % (e, v))
        R.shuffle(lines); return ch(["cat .env", "cat .env.local", "env | grep -v PATH", "printenv"]), "\n".join(lines)
    if j == 1:
        return "git log --oneline -5", "\n".join("%s %s" % (c.D(short_sha(), "commit_sha"), ch(["fix: retry on 429", "feat: add invoices endpoint", "chore(deps): bump axios to %s" % version(), "refactor db pool", "Merge pull request #%d from acme/fix" % ri(10, 2000)])) for _ in range(5))
    if j == 2:
        pw = pw_urlsafe()
        return "grep -rn DATABASE_URL config/", "config/database.yml:%d:  url: postgres://app:%s@%s:5432/app\nconfig/test.yml:3:  url: postgres://app:${DB_PASSWORD}@localhost:5432/test" % (ri(2, 40), c.S(pw, "password"), ch(HOSTS))
    if j == 3:
        e, v, k = vendor()
        return "curl -s -H \"Authorization: Bearer %s\" https://api.%s/v1/health" % (c.S(v, k, env=e), ch(DOMAINS)), '{"status":"ok","version":"%s","region":"%s"}' % (version(), ch(["eu-west-1", "us-east-1"]))
    if j == 4:
        n, r, e = person(c.lang)
        return "psql $DATABASE_URL -c 'select id,name,email from users order by id desc limit 2'", box_table(["id", "name", "email"], [[ri(1, 999), c.P(n, "person_name"), c.P(e, "email")], [ri(1, 999), c.P((p := person(c.lang))[0], "person_name"), c.P(p[2], "email")]], "psql")
    return "npm test", "> api@%s test\n> jest\n\n PASS  src/auth.test.ts\n FAIL  src/billing.test.ts\n  ● charges › creates a charge\n    expect(received).toBe(expected)\n    Expected: 200\n    Received: 401\n\nTests: 1 failed, %d passed, %d total" % (version(), ri(10, 90), ri(91, 120))

@style("agent_claude")
def st_claude(c):
    out = ["> " + prose(c, ch([["fail", "help"], ["help"], ["works", "help"]])), ""]
    for _ in range(ri(1, 3)):
        cmd, o = tool_output(c)
        ol = o.split("\n"); shown = ol[:ri(4, 12)]
        out.append("⏺ " + ch(["", "Let me check the configuration.\n\n⏺ ", "I'll look at the environment first.\n\n⏺ "]) + "Bash(%s)" % cmd)
        out.append("  ⎿  " + ("\n     ".join(shown)))
        if len(ol) > len(shown): out.append("     … +%d lines (ctrl+r to expand)" % (len(ol) - len(shown)))
        out.append("")
        # drop labels that are no longer visible
    out.append("⏺ " + ch(["The 401 comes from an expired token; rotate it and update the secret.", "The connection string points at the wrong host.", "I found the issue: the env var is read before dotenv loads."]))
    t = "\n".join(out)
    return t

@style("agent_codex")
def st_codex(c):
    out = ["[%s] OpenAI Codex v0.%d.0 (research preview)" % (ts()[:19], ri(20, 60)), "--------", "workdir: /home/%s/src/%s" % (ch(["dev", "runner", "ubuntu"]), ch(["api", "shop"])), "model: %s" % ch(["gpt-5-codex", "o4-mini"]), "approval: never", "sandbox: workspace-write", "--------",
           "[%s] User instructions:\n%s" % (ts()[:19], prose(c, ["fail", "help"]))]
    for _ in range(ri(1, 3)):
        cmd, o = tool_output(c)
        out.append("[%s] exec bash -lc '%s' in /home/dev/src/api" % (ts()[:19], cmd.replace("'", "'\\''")))
        out.append("[%s] bash -lc '%s' succeeded in %dms:\n%s" % (ts()[:19], cmd.replace("'", "'\\''"), ri(5, 3000), o))
    out.append("[%s] codex\n%s" % (ts()[:19], ch(["Found it: the token in .env is revoked.", "The test fails because STRIPE_SECRET_KEY is unset in CI."])))
    out.append("[%s] tokens used: %d" % (ts()[:19], ri(2000, 90000)))
    return "\n".join(out)

@style("agent_json_messages")
def st_agentjson(c):
    msgs = [{"role": "user", "content": prose(c, ["fail", "help"])}]
    encs = []
    for _ in range(ri(1, 3)):
        cmd, o = tool_output(c)
        tid = "toolu_" + rs(24)
        msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": cmd}}]})
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": o}]})
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": ch(["The key in .env is invalid.", "Fixed the pool config."])}]})
    asc = R.random() < .5
    s = json.dumps(msgs, ensure_ascii=asc, indent=ch([None, 2]))
    # values may now be escaped: compute shown
    for lab in c.secrets + c.pii:
        if lab["value"] not in s or (asc and any(ord(ch_) > 127 for ch_ in lab["value"])):
            sh = json.dumps(lab["value"], ensure_ascii=asc)[1:-1]
            if sh in s: lab["shown"] = sh
    if R.random() < .4:  # double encoded: the transcript is itself a string in a log line
        s2 = json.dumps({"session": uuid4(), "transcript": s}, ensure_ascii=asc)
        for lab in c.secrets + c.pii:
            base = lab.get("shown", lab["value"])
            sh = json.dumps(base, ensure_ascii=asc)[1:-1]
            if sh != lab["value"]: lab["shown"] = sh
        s = s2
    return s

@style("agent_panes")
def st_panes(c):
    sub = ri(0, 1); out = []
    if sub == 0:
        out.append("╭" + "─" * 60 + "╮\n│ > %s\n╰" % prose(c, ["help"])[:56] + "─" * 60 + "╯")
        for _ in range(ri(1, 2)):
            cmd, o = tool_output(c)
            out.append(" ✔  Shell %s\n\n%s\n" % (cmd, "\n".join("    " + l for l in o.split("\n"))))
        out.append("✦ " + ch(["I see the problem in your configuration.", "The credentials above are being sent to the wrong endpoint."]))
        out.append("\n Using: 1 GEMINI.md file                      gemini-2.5-pro (%d%% context left)" % ri(40, 99))
    else:
        out.append("● " + prose(c, ["help"]))
        for _ in range(ri(1, 2)):
            cmd, o = tool_output(c)
            out.append("\n✓ Run command\n   $ %s\n   ↪ %d lines...\n%s" % (cmd, len(o.split("\n")), "\n".join("   " + l for l in o.split("\n"))))
        out.append("\n● " + ch(["Done. I updated the config.", "That token appears to be expired."]))
        out.append("\n~/src/api [⎇ main*]                                   claude-sonnet-4.5 (1x)")
    return "\n".join(out)

@style("terminal_wrap")
def st_wrap(c):
    parts = []
    sub = ri(0, 2)
    if sub == 0:
        for _ in range(ri(2, 4)):
            e, v, k = vendor()
            if len(v) < 30: v = v + rs(30) if k in ("password", "api_key") else v
            parts.append("export %s=%s" % (e, c.S(v, k, env=e)))
        parts.insert(0, "$ cat ~/.zshrc | grep export")
    elif sub == 1:
        parts.append("$ kubectl get secret app -o jsonpath='{.data.token}' | base64 -d; echo")
        parts.append(c.S(jwt(), "jwt"))
        parts.append("$ kubectl get secret app -o jsonpath='{.data.db_url}' | base64 -d; echo")
        parts.append("postgresql://app:%s@%s:5432/app?sslmode=require&application_name=%s" % (c.S(pw_gen(), "password"), ch(HOSTS), ch(["api", "worker"])))
    else:
        parts.append("$ aws configure export-credentials --format env")
        parts.append("export AWS_ACCESS_KEY_ID=%s" % c.S(aws_akid("ASIA"), "aws_access_key_id"))
        parts.append("export AWS_SECRET_ACCESS_KEY=%s" % c.S(aws_secret(), "aws_secret_access_key"))
        parts.append("export AWS_SESSION_TOKEN=%s" % c.S(aws_session(), "aws_session_token"))
        parts.append("export AWS_CREDENTIAL_EXPIRATION=%s" % ts())
    if R.random() < .5: parts.append(log_noise(ri(1, 3)))
    block = "\n".join(parts)
    return try_wrap(c, block, widths=(80, 100, 120), indents=(0, 0, 1, 2, 3, 4, 5)) + ("\n\n" + prose(c, ["help"]) if R.random() < .5 else "")

@style("git_diff")
def st_diff(c):
    f = ch(["config/settings.py", ".env.example", "deploy/values-prod.yaml", "src/config.ts", "docker-compose.yml"])
    e, v, k = vendor()
    old = ch(["%s=%s" % (e, c.D(placeholder(e), "masked_or_placeholder")), "%s=" % e, "# %s=" % e])
    L = ["commit %s" % c.D(sha1(), "commit_sha"), "Author: %s <%s>" % (c.P((p := person(c.lang))[0], "person_name"), c.P(p[2], "email")), "Date:   %s" % ch(["Tue Oct 6 14:%02d:11 2026 +0200" % ri(0, 59), "Mon Nov 2 09:%02d:40 2026 +0900" % ri(0, 59)]), "",
         "    %s" % ch(["wip: local config", "fix prod deploy", "temp: hardcode key for demo", "chore: update env"]), "", "diff --git a/%s b/%s" % (f, f), "index %s..%s 100644" % (short_sha(), short_sha()), "--- a/%s" % f, "+++ b/%s" % f,
         "@@ -%d,%d +%d,%d @@ %s" % (ri(1, 40), ri(3, 9), ri(1, 40), ri(3, 9), ch(["", "def get_settings():", "services:"])), " LOG_LEVEL=info", "-" + old, "+%s=%s" % (e, c.S(v, k, env=e)), " PORT=8080"]
    if R.random() < .5:
        pw = pw_any(); L += ["-DB_PASSWORD=${DB_PASSWORD}", "+DB_PASSWORD=%s" % c.S(pw, "password"), " TOKEN_TTL=3600"]; c.D("TOKEN_TTL=3600", "ttl_or_policy"); c.D("${DB_PASSWORD}", "masked_or_placeholder")
    return ch(["$ git show HEAD\n", "$ git log -p -1\n", prose(c, ["note"]) + ": " + prose(c, ["rotate"]) + "\n\n"]) + "\n".join(L)

@style("tables_md")
def st_tables(c):
    sub = ri(0, 2); kind = ch(["md", "box", "mysql"])
    if sub == 0:
        rows = []
        for _ in range(ri(3, 6)):
            e, v, k = vendor(); rows.append([ch(["prod", "staging", "dev"]), e, c.S(v, k, env=e), ch(["@" + person("en")[1].split(".")[0], "ops"]), date()])
        return "## %s\n\n%s\n" % (ch(["Credentials inventory", "Zugangsdaten", "認証情報一覧"]), box_table(["env", "name", "value", "owner", "rotated"], rows, kind))
    if sub == 1:
        rows = []
        for _ in range(ri(3, 7)):
            n, r, e = person(c.lang); rows.append([c.P(n, "person_name"), c.P(e, "email"), c.P(phone(c.lang), "phone"), ch(["on-call", "backup", "lead"])])
        return "%s\n\n%s" % (ch(["On-call rota", "Bereitschaft", "当番表"]), box_table(["name", "email", "phone", "role"], rows, kind))
    rows = [[ch(["api", "web", "worker"]), c.D(version(), "version"), c.D(digest(), "image_digest"), c.D(priv_ip(), "private_ip"), ch(["Running", "Pending"])] for _ in range(ri(3, 6))]
    return "%s\n\n%s" % (ch(["Deploy status", "Estado del despliegue"]), box_table(["service", "version", "image", "ip", "status"], rows, kind))

@style("debug_notes")
def st_notes(c):
    L = ["# %s — %s" % (ch(["Debug notes", "Notizen", "メモ", "Notas", "Заметки", "调试记录"]), date()), "", prose(c, ["fail"]), ""]
    for _ in range(ri(2, 5)):
        j = ri(0, 5)
        if j == 0: L += ["```", log_noise(ri(2, 4)), "```"]
        elif j == 5 and not c.nosec:
            L.append("- %s:" % ch(["GitHub 2FA recovery codes (org owner)", "Backup-Codes", "リカバリーコード", "códigos de recuperação"]))
            L += ["    " + c.S(x, "recovery_code") for x in recovery_codes(ri(4, 10))]
        elif j == 5: L.append("- recovery codes: %s" % c.D("stored in 1Password (vault: Infra)", "placeholder"))
        elif j == 1:
            e, v, k = vendor(); L.append("- %s `%s` = `%s`" % (prose(c, ["note"]), e, c.S(v, k, env=e)))
        elif j == 2: L.append("- trace: %s, request %s" % (c.D(trace_id(), "trace_id"), c.D(uuid4(), "request_id")))
        elif j == 3: L.append("- %s: `%s`, TTL=%ds, password_min_length: %d" % (ch(["placeholder in docs", "example"]), c.D(placeholder(), "masked_or_placeholder"), ch([3600, 900]), ch([8, 12])))
        else: L.append("- ssh %s@%s  (%s)" % (ch(["ubuntu", "ec2-user"]), c.D(pub_ip(), "server_ip"), c.D(ssh_fp(), "ssh_fingerprint")))
    L += ["", prose(c, ["works", "help"])]
    return "\n".join(L)

@style("pem_yaml")
def st_pemyaml(c):
    ind = ch(["    ", "      ", "  "])
    p = pem(ch(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"]))
    body = c.pem(p, "private_key", ind)
    cert = "-----BEGIN CERTIFICATE-----\n" + "\n".join(pem_body(600)) + "\n-----END CERTIFICATE-----"
    c.D(cert.split("\n")[1], "certificate_line")
    hd = ch(["# values-prod.yaml (helm)\ningress:\n  tls:\n    enabled: true\n", "$ cat config/ssl.yml\n", ""])
    return hd + "tls:\n  certificate: |\n%s%s\n  privateKey: |\n%s%s\n  dhparamBits: 2048\n  minVersion: TLSv1.2\n" % (ind, ("\n" + ind).join(cert.split("\n")), ind, body) + ("\n" + prose(c, ["help"]) if R.random() < .5 else "")

# ---------------------------------------------------------------- assembly & checks
def visible(lab, text):
    if "pieces" in lab: return all(p in text for p in lab["pieces"])
    return lab.get("shown", lab["value"]) in text

def prune(c, text):
    c.secrets = [l for l in c.secrets if visible(l, text)]; c.pii = [l for l in c.pii if visible(l, text)]; c.decoys = [d for d in c.decoys if d["value"] in text]

def drop_phantoms(c, text):
    """sub-shape choices are built eagerly (ch([...]) evaluates every option), so some labels are for values that
    never reached the text. Drop those, but only when no fragment of the value is visible (else keep -> self-check fails)."""
    def phantom(l):
        if visible(l, text): return False
        v = l["value"]; frags = [v] if len(v) < 12 else [v[:8], v[-8:], v[len(v) // 2 - 4:len(v) // 2 + 4]]
        if "shown" in l: frags += [l["shown"][:8], l["shown"][-8:]] if len(l["shown"]) >= 12 else [l["shown"]]
        encs = [json.dumps(v, ensure_ascii=True)[1:-1], json.dumps(json.dumps(v, ensure_ascii=True)[1:-1])[1:-1], urllib.parse.quote(v, safe=""), urllib.parse.quote_plus(v), html.escape(v), base64.b64encode(v.encode()).decode()]
        return not any(f in text for f in frags + [e for e in encs if len(e) >= 4])
    c.secrets = [l for l in c.secrets if not phantom(l)]; c.pii = [l for l in c.pii if not phantom(l)]; c.decoys = [d for d in c.decoys if d["value"] in text]

def dedupe(labs):
    seen = set(); out = []
    for l in labs:
        key = (l["value"], l["kind"], l.get("shown"), tuple(l.get("pieces", ())))
        if key not in seen: seen.add(key); out.append(l)
    return out

def check_row(row):
    t = row["text"]; errs = []
    for cls in ("secrets", "pii"):
        for l in row[cls]:
            if "pieces" in l:
                ps = l["pieces"]
                if any(len(p) < 6 or p not in t for p in ps): errs.append("piece missing/short %r" % l["value"][:30])
                if "".join(ps) != l["value"].replace("\n", ""): errs.append("pieces don't join %r" % l["value"][:30])
            elif "shown" in l:
                if l["shown"] not in t: errs.append("shown missing %r" % l["shown"][:40])
            elif l["value"] not in t: errs.append("value missing %s %r" % (cls, l["value"][:40]))
            if not l["value"].strip(): errs.append("empty value")
    for d in row["decoys"]:
        if d["value"] not in t: errs.append("decoy missing %r" % d["value"][:40])
    sens = [l["value"] for l in row["secrets"] + row["pii"]] + [l["shown"] for l in row["secrets"] + row["pii"] if "shown" in l]
    for d in row["decoys"]:
        for s in sens:
            if s in d["value"] or d["value"] in s: errs.append("decoy/label overlap %r ~ %r" % (d["value"][:30], s[:30]))
    # a secret must not hide inside pii or the reverse (e.g. password equal to a name)
    for a in row["secrets"]:
        for b in row["pii"]:
            if a["value"] in b["value"] or b["value"] in a["value"]: errs.append("secret/pii overlap")
    return errs

BIG_OK = {"k8s_describe", "ci_log", "stack_trace", "structured_logs", "chat_thread", "debug_notes", "agent_claude", "agent_codex", "agent_panes", "terminal_wrap", "git_diff", "service_units", "redis_mongo_session", "repl_session", "http_dump", "sql_client"}

FAILS = []
def build(seed, per_style=13):
    R.seed(seed); rows = []; nid = 0; fails = Counter()
    langs_cycle = []
    styles = list(STYLES)
    plan = [s for s in styles for _ in range(per_style)]
    R.shuffle(plan)
    nosec_count = 0
    for i, st in enumerate(plan):
        if not langs_cycle: langs_cycle = LANGS[:] + ["en", "en", "de", "ja", "es"]; R.shuffle(langs_cycle)
        lang = langs_cycle.pop()
        ratio = nosec_count / max(1, i)
        want_nosec = R.random() < (0.38 if ratio < 0.30 else 0.12)
        for attempt in range(40):
            c = Ctx(lang, want_nosec)
            text = STYLES[st](c)
            if st == "agent_claude": prune(c, text)
            drop_phantoms(c, text)
            if not any(ph in text for ph in PHR[lang]) and not c.pii:
                pre, post = ch([(["intro"], []), (["fail", "intro"], []), (["full"], []), (["intro"], ["help"]), ([], ["help"]), (["fail", "full"], ["rotate"])])
                text = (prose(c, pre) + "\n\n" if pre else "") + text + ("\n\n" + prose(c, post) if post else "")
            while len(text) < 200:
                text = prose(c, ch([["intro"], ["fail", "intro"], ["full"], ["works", "intro"]])) + "\n\n" + text
            if st in BIG_OK and R.random() < .12:
                big = log_noise(ri(25, 150))
                text = (text + "\n" + big) if R.random() < .5 else (prose(c, ["full"]) + "\n" + big + "\n" + text)
            row = {"id": None, "style": st, "lang": lang, "text": text, "secrets": dedupe(c.secrets), "pii": dedupe(c.pii), "decoys": dedupe(c.decoys)}
            errs = check_row(row)
            if not errs: break
            fails[st] += 1; FAILS.append((st, errs[:2]))
            if attempt == 39: raise SystemExit("cannot build valid row for %s: %s" % (st, errs))
        nid += 1; row["id"] = "fsc-%04d" % nid
        if not row["secrets"]: nosec_count += 1
        rows.append(row)
    return rows, fails

def stats(rows):
    print("rows:", len(rows))
    print("no-secret rows: %d (%.1f%%)" % (sum(1 for r in rows if not r["secrets"]), 100 * sum(1 for r in rows if not r["secrets"]) / len(rows)))
    L = sorted(len(r["text"]) for r in rows)
    print("text length: min %d, median %d, p90 %d, max %d; <200: %d; >3000: %d" % (L[0], L[len(L) // 2], L[int(len(L) * .9)], L[-1], sum(1 for x in L if x < 200), sum(1 for x in L if x > 3000)))
    for name, key in (("style", "style"), ("lang", "lang")):
        cnt = Counter(r[key] for r in rows); print("\nby %s (%d):" % (name, len(cnt)))
        for k, v in sorted(cnt.items()): print("  %-22s %d" % (k, v))
    for cls in ("secrets", "pii", "decoys"):
        cnt = Counter(l["kind"] for r in rows for l in r[cls]); print("\n%s kinds (%d labels):" % (cls, sum(cnt.values())))
        for k, v in cnt.most_common(): print("  %-28s %d" % (k, v))
    print("\nlabels with shown: %d, with pieces: %d" % (sum(1 for r in rows for l in r["secrets"] + r["pii"] if "shown" in l), sum(1 for r in rows for l in r["secrets"] + r["pii"] if "pieces" in l)))

def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--seed", type=int, default=9137); ap.add_argument("--out", default="set.jsonl"); ap.add_argument("--per-style", type=int, default=13); ap.add_argument("--stats", action="store_true")
    a = ap.parse_args()
    rows, fails = build(a.seed, a.per_style)
    # final global checks
    bad = [(r["id"], e) for r in rows for e in check_row(r)]
    assert not bad, bad[:5]
    with open(a.out, "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(r, ensure_ascii=False) + "\n")
    h = hashlib.sha256(open(a.out, "rb").read()).hexdigest()
    print("wrote %d rows to %s sha256=%s (regenerated rows after failed self-check: %d)" % (len(rows), a.out, h, sum(fails.values())), file=sys.stderr)
    if a.stats: stats(rows)

if __name__ == "__main__":
    main()
