"""Test vectors of the credential rules (govern/credential_rules.py) and the token formats the issue
names, written here from the formats' public descriptions (never copied from the shared corpora).

(rule, text, the value that must disappear) and (rule, text that must stay unredacted by it).
"""

from __future__ import annotations

import base64

_PAIR_B64 = base64.b64encode(b"deploy:Wq8-zt!kV2").decode()

SECRET_POSITIVE: list[tuple[str, str, str]] = [
    (
        "webhook_url",
        "post to https://acme.webhook.office.com/webhookb2/0f9e8d7c-1b2a-4c3d-9e8f-7a6b5c4d3e2f@1a2b/IncomingWebhook/9f8e7d6c",
        "0f9e8d7c-1b2a-4c3d-9e8f-7a6b5c4d3e2f@1a2b/IncomingWebhook/9f8e7d6c",
    ),
    (
        "webhook_url",
        "alerts go to https://discord.com/api/webhooks/123456789012345678/Zq8xW7vU6tS5rQ4pO3nM2lK1jI0hG",
        "123456789012345678/Zq8xW7vU6tS5rQ4pO3nM2lK1jI0hG",
    ),
    ("auth_header", "curl -H 'Authorization: Bearer 9fQk2LmZ7xTq4WbN8vRc'", "9fQk2LmZ7xTq4WbN8vRc"),
    ("auth_header", 'headers = {"Authorization": "Token 7d1e0c4b9a2f"}', "7d1e0c4b9a2f"),
    ("auth_header", "send it with bearer Zx81kQ0pLm3nB7vC5xW2", "Zx81kQ0pLm3nB7vC5xW2"),
    ("command_credential", "curl -u deploy:Wq8-zt!kV2 https://ci.internal/api", "Wq8-zt!kV2"),
    ("command_credential", "curl -s --user 'deploy:Wq8 zt kV2' https://ci", "Wq8 zt kV2"),
    ("command_credential", "mysql -h db -u root -pWq8zt!kV2 shop", "Wq8zt!kV2"),
    ("command_credential", "sshpass -p 'Wq8zt!kV2' ssh ops@bastion", "Wq8zt!kV2"),
    ("command_credential", "app login --password Wq8zt!kV2 --user ops", "Wq8zt!kV2"),
    ("command_credential", "gh-sync --token Wq8zt2kV2QqL1 --repo x", "Wq8zt2kV2QqL1"),
    ("command_credential", "BUNDLE_GEMS__EXAMPLE__COM=deploy:Wq8ztkV2", "deploy:Wq8ztkV2"),
    ("credential_file", "machine api.example.com login deploy password Wq8zt!kV2", "Wq8zt!kV2"),
    ("credential_file", "machine git.example.com\n  login deploy\n  password Wq8zt!kV2\n", "Wq8zt!kV2"),
    ("credential_file", "db.example.com:5432:shop:deploy:Wq8zt!kV2", "Wq8zt!kV2"),
    ("credential_file", "*:*:*:postgres:Wq8zt!kV2\n", "Wq8zt!kV2"),
    ("secret_element", "<password>Wq8zt!kV2</password>", "Wq8zt!kV2"),
    ("secret_element", "<apiToken>\n    Wq8ztkV2QqL1\n</apiToken>", "Wq8ztkV2QqL1"),
    ("secret_element", '<add key="ClearTextPassword" value="Wq8 zt kV2" />', "Wq8 zt kV2"),
    ("basic_auth", f'{{"auths": {{"registry.example.com": {{"auth": "{_PAIR_B64}"}}}}}}', _PAIR_B64),
    ("basic_auth", f"the header was Basic {_PAIR_B64} yesterday", _PAIR_B64),
    ("basic_auth", f"kind: Secret\ndata:\n  creds: {_PAIR_B64}", _PAIR_B64),
    (
        "putty_private_key",
        "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nAAAAIB0xQ\nPrivate-MAC: 5a3f",
        "AAAAIB0xQ",
    ),
    (
        "huggingface_token",
        "HF_HUB=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 ok",
        "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",
    ),
    ("digitalocean_token", "doctl auth init -t dop_v1_" + "ab12" * 16, "dop_v1_" + "ab12" * 16),
    ("shopify_token", "X-Shopify-Access-Token shpat_" + "0f1e" * 8, "shpat_" + "0f1e" * 8),
    (
        "age_secret_key",
        "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" + "QPZRY9X8GF2TVDW0S3JN54KHCE",
        "AGE-SECRET-KEY-1",
    ),
    (
        "telegram_token",
        "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw2 ready",
        "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw2",
    ),
    ("twilio_key", "twilio SK" + "9a8b" * 8, "SK" + "9a8b" * 8),
]

SECRET_NEGATIVE: list[tuple[str, str]] = [
    ("webhook_url", "see https://learn.microsoft.com/webhooks and discord.com/api/webhooks docs"),
    ("auth_header", "Authorization: Bearer $TOKEN is read from the environment"),
    ("auth_header", "the bearer bonds matured in 1999"),
    ("command_credential", "docker run -u 1000:1000 image; mysql -p shop; app --password-file ./pw"),
    ("command_credential", "curl -u $USER:$PASS https://x and login --token $GH_TOKEN"),
    ("credential_file", "the default password is changeme; at 10:30:00:12 the job ran"),
    ("secret_element", "<password></password> and <tokenizer>bert</tokenizer>"),
    ("basic_auth", '{"auth": "", "authenticated": true}'),
    ("putty_private_key", "PuTTY is an SSH client for Windows"),
    ("huggingface_token", "the hf_hub_download helper and shf_ZqXwVuTsRqPoNmLkJiHgFeDcBaZyXwVuTs"),
    ("digitalocean_token", "dop_v1_short"),
    ("shopify_token", "shpat_notatoken"),
    ("age_secret_key", "AGE-SECRET-KEY-1 is the prefix"),
    ("telegram_token", "ratio 123456789:Alpha"),
    ("twilio_key", "SKU SK12 and ASK" + "9a8b" * 8),
]
