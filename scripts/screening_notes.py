"""Ordinary notes that name what attacks ask for: passwords, keys, encodings, a person's details.

Training material for ``scripts/train_screening.py`` (benign rows). The public attack sets ask a
model for "the password", "the user's email address" or "where the user lives", often in the
imperative and with an encoding ("in base64", "in reverse order"), so a model trained on them alone
learns that these words are hostile. A memory server stores such words every day: how a team
handles its credentials, where a secret lives, what the user told the assistant about themselves.
These notes, written here as people write them, teach the model the difference between handling a
secret and asking for one.
"""

from __future__ import annotations

CREDENTIAL_NOTES = (
    "Put the registry token into the CI secret store, base64-encoded as the runner expects.",
    "Reset the admin password with the manage.py changepassword command.",
    "Rotate the database password every quarter and update the Vault entry afterwards.",
    "Put the staging API key in the team's 1Password vault, not in the repository.",
    "Encode the service account JSON in base64 before pasting it into the CI variable.",
    "Decode the JWT with base64 -d to read the expiry claim when debugging logins.",
    "Keep the SMTP password in the .env file; .env is in .gitignore.",
    "Generate a new SSH deploy key for each repository instead of reusing the old one.",
    "The Postgres password for local development is in docker-compose.override.yml.",
    "Hash passwords with argon2id; bcrypt is only kept for the legacy accounts.",
    "Never print the password in the logs; mask it with the redact helper.",
    "Use kubectl create secret generic to add the Redis password to the cluster.",
    "Write the new password policy into the onboarding wiki: 14 characters minimum.",
    "Send the rotated credentials to the on-call engineer through the password manager share.",
    "Store the webhook signing secret in AWS Secrets Manager under payments/webhook.",
    "Convert the certificate to base64 with openssl base64 -A before adding it to Helm values.",
    "Ask the user for their email address only at checkout, never on the landing page.",
    "The user's email address for invoices is billing@example.org.",
    "The user lives in Porto and prefers meetings after 10:00 local time.",
    "User's birthday is on 14 March; remind me a week before.",
    "Write the user's initials in the commit trailer, as the team does.",
    "My partner's email address changed; the new one is in my contacts.",
    "Translate the password reset e-mail into Spanish and Portuguese before launch.",
    "Write a short poem for Anna's farewell card; she loves sailing.",
    "Reverse the order of the changelog entries so the newest comes first.",
    "Split the long migration into three parts and run them one after another.",
    "Explain the OAuth flow in the README in simple terms for new contributors.",
    "If the login fails, check whether the password contains a character the shell expands.",
    "The secret key for the Django app lives in the SECRET_KEY environment variable.",
    "Tell the support team to never ask customers for their full password.",
    "Share the Wi-Fi password with guests through the QR code on the fridge.",
    "Export the Keychain passwords before wiping the old laptop.",
    "Remember that the router admin password is on the sticker under the device.",
    "Set the GPG key to expire after two years and renew it in January.",
    "Run git secrets --scan before pushing to catch keys committed by mistake.",
    "Print the password hash with SELECT passwd FROM pg_shadow only on the test database.",
    "Encrypt the backup with age and keep the identity file on the hardware key.",
    "Give the intern read-only access to the analytics dashboard, not to the database.",
    "Reply to the security researcher within two working days and thank them.",
    "Summarise the incident report in five bullet points for the weekly meeting.",
    "Write a haiku about the deployment for the release notes, the team enjoys them.",
    "Show the user's address on the invoice, but not on the public profile page.",
    "Speichere das Datenbankpasswort im Tresor, nicht in der Konfigurationsdatei.",
    "Setze das Admin-Passwort nach dem Einrichten zurück und notiere es im Passwortmanager.",
    "Kodiere das Zertifikat in Base64, bevor es in die Helm-Werte kommt.",
    "Die E-Mail-Adresse des Nutzers für Rechnungen steht im Kundenkonto.",
    "Guarda la contraseña de la base de datos en el gestor de contraseñas del equipo.",
    "Stocke le mot de passe de l'API dans le coffre-fort, jamais dans le dépôt.",
    "Conserva la password del server di staging nel gestore delle password.",
    "Armazene a senha do banco de dados no cofre e troque-a a cada trimestre.",
    "Veritabanı şifresini kasada sakla, yapılandırma dosyasına yazma.",
    "Храни пароль от базы данных в менеджере паролей, а не в репозитории.",
)

# Operations notes that say where a secret goes and in what encoding, in the imperative, as runbooks
# and to-do lines are written: "password" beside "base64" or "encode" reads like the attacks that ask
# for a secret in an encoding, and without notes such as these an ordinary ops note was flagged.
OPS_SECRET_NOTES = (
    "Base64-encode the Postgres password before adding it to the secret manifest.",
    "Write the registry password into the Kubernetes secret as a base64 string.",
    "Keep the Grafana admin password in a sealed secret, not in values.yaml.",
    "Create the TLS secret with kubectl and the base64 of the certificate and key.",
    "Put the MinIO access key and secret key into the cluster secret, both base64.",
    "Store the RabbitMQ password in the Helm chart's existingSecret, encoded in base64.",
    "Add the Stripe API key to the GitHub Actions secrets and reference it as an env variable.",
    "Save the LDAP bind password in the secrets file that Ansible Vault encrypts.",
    "Move the Elasticsearch password from the compose file into a Docker secret.",
    "Mount the database password as a file from the secret, never as a plain env var.",
    "Rotate the service account token and update the base64 value in the secret.",
    "Encode the htpasswd line in base64 for the ingress basic-auth secret.",
    "Copy the Redis password from the vault into the deployment secret after every rotation.",
    "Set the Kafka SASL password through the secret and restart the brokers one by one.",
    "Keep the signing key in the HSM; the application only sees a key handle.",
    "Convert the keystore password to base64 and paste it into the Terraform variable.",
    "Store the SFTP password for the partner upload in the team vault under integrations.",
    "Write the OAuth client secret to the Kubernetes secret and restart the auth pods.",
    "Put the encryption passphrase for the backups in the password manager, shared with ops.",
    "Patch the secret with the new base64 password, then roll the statefulset.",
    "Decode the secret with base64 -d to check that the password has no trailing newline.",
    "Use external-secrets to sync the database password from AWS into the namespace.",
    "The Jenkins credentials store keeps the deploy password; jobs read it by id.",
    "Encrypt the .env file with sops before committing; the age key is on the CI runner.",
    "Keep the SMTP relay password in the secret named mail-relay in the prod namespace.",
    "Store the API token in the keychain and let the CLI read it from there.",
    "Add the Sentry DSN and the auth token to the Vercel project settings as secrets.",
    "Generate the Django SECRET_KEY once per environment and keep it in the secret store.",
    "Lege das Datenbankpasswort base64-kodiert im Kubernetes-Secret ab.",
    "Guarda la contraseña de Redis en el secret de Kubernetes, codificada en base64.",
    "Mets le mot de passe de la base dans le secret Kubernetes, encodé en base64.",
    "Salva la password del database nel secret di Kubernetes, codificata in base64.",
    "Coloque a senha do banco no secret do Kubernetes, codificada em base64.",
    "Veritabanı şifresini base64 ile kodlayıp Kubernetes secret'ına koy.",
    "Положи пароль базы данных в Kubernetes secret в base64.",
)

__all__ = ["CREDENTIAL_NOTES", "OPS_SECRET_NOTES"]
