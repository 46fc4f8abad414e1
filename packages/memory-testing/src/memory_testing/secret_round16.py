"""Round 16 of the generated firewall corpus: secrets (most with their own literal values) and near-misses, written blind.

Written on 2026-12-05 as round 16 by a session that had not read the firewall's rules, its
documentation, its tests or their history, and that never ran the firewall on these samples: the
figures they give measure how the rules generalise to material written by someone who does not
know them. Only `secret_generators.py` (its `_round`, `_literal_round`, `_FILLERS` and table
formats), `secret_round14.py` and `secret_round15.py` were read, for the data format and to pick
families, syntaxes, languages and value shapes the earlier rounds did not use.

Most secrets of this round are written by hand (`LITERAL_SECRETS`, 154 texts against 18 templates
that `_round` draws 54 samples from; 78 near-miss templates give 234 near-misses) as they appear in
coding-agent turns: Terraform plan/state/output, `aws configure`, `gcloud`/`az`/`doctl`/`flyctl` output,
`docker compose config`, `kubectl get secret -o yaml` (the secret is the base64 string), `helm get
values`, Vault `kv get` tables, 1Password/Bitwarden/KeePassXC CLI output, `.netrc`, `.pypirc`,
`.npmrc`, `pip.conf`, Maven `settings.xml`, `gradle.properties`, Cargo and composer credentials,
`git credential fill`, `git remote -v`, Jupyter config, DBeaver/DataGrip exports, Postman and
Insomnia exports, HAR files, "copy as cURL", chat messages, forwarded mail, OCR text, commit
messages, review comments, TODOs, test fixtures and auth-failure log lines that echo the password,
and user prompts in Japanese, Chinese, Bengali, Tamil, Polish, Dutch, Portuguese (BR), Spanish
(LatAm), French (CA), Italian, Swiss German, Norwegian, Danish, Icelandic, Estonian, Arabic,
Latvian, Lithuanian, Slovak, Slovenian, Croatian, Serbian (Cyrillic and Latin), Bulgarian,
Macedonian, Albanian, Malay, Filipino, Zulu, Yoruba and Korean. Values are short words, one case,
sports teams, pets, places, names and years, keyboard patterns, leetspeak, repeated characters,
sentences with spaces, values in non-Latin scripts, values holding quotes, backslashes, `$`, `#`,
`;` or `%` in the escaped form their syntax shows, invented vendor tokens (prefixed and
unprefixed), and private keys in unusual wrappers (JWK `d`, PKCS#8 base64 without PEM headers,
OpenSSH keys inside JSON strings). Some sit where nothing nearby says password, token or key, some
in the middle of long benign output. None of them ever worked anywhere.

Tables:
- `SECRETS`: variant -> (fold, templates), each template holds `{s}` exactly once, as
  `_round(tag, secret_table, benign_table, token_length)` takes it.
- `LITERAL_SECRETS`: variant -> (fold, ((text, secret), ...)); `secret` occurs verbatim in `text`
  (in the escaped form the syntax around it shows) and each text is one sample, used as is.
- `BENIGN`: variant -> (fold, templates) of near-misses that hold no secret and no `{s}`, only
  `_FILLERS` placeholders for random-looking benign values.

The fold is decided by the family (tool, syntax, value shape or language), never by chance: fold A
holds cloud CLIs (aws/gcloud/az/doctl/flyctl), package-manager credential files (.pypirc, Cargo,
composer, .netrc, .npmrc, pip.conf, Maven, Gradle), Terraform, Kubernetes/Helm/compose rendered
output, Vault tables, Japanese/Polish/Dutch/Chinese/Bengali/Tamil/Spanish (LatAm)/French (CA)/
Swiss German/Norwegian/Danish/Estonian/Portuguese (BR)/Italian/Icelandic, and the literal shapes
short words, sports teams, pets and places, syntax escaping (HCL, TOML, XML, shell, properties),
key wrappers (JWK, bare PKCS#8), values with nothing secret-like nearby and one vendor group;
fold B holds API clients (Postman, Insomnia, HAR, copy as cURL), password-manager CLIs, DB GUI
and Jupyter config, git credentials and commit messages, chat, mail, OCR, review comments and
TODOs, auth-failure logs and test fixtures, Arabic/Latvian/Serbian/Lithuanian/Slovak/Slovenian/
Croatian/Bulgarian/Macedonian/Albanian/Malay/Filipino/Zulu/Yoruba/Korean, and the literal shapes
sentences, non-Latin values, repeated characters and keyboard patterns, OpenSSH keys in JSON,
values in long output and one vendor group. Near-misses follow the same split (hashes, ids,
etags, digests, base64 of plain text, public keys and certificates, vendor example credentials,
placeholders, masked values, names without values, secret-store references, password policies,
labelled hashes, code that handles passwords, i18n strings, object names with hash suffixes,
integrity strings, nonces, public site keys and client ids, analytics ids, publishable keys).

Failure: none at import; the tables are plain data (not wired into `generate()` here).
"""

# ruff: noqa: E501, RUF001 - a template is a turn's line (kept on one line), in the script it is written in

from __future__ import annotations

__all__ = ["BENIGN", "LITERAL_SECRETS", "SECRETS"]

SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "cloud-cli-16": (
        "A",
        (
            "$ aws configure --profile billing-ro\nAWS Access Key ID [None]: AKIAZ7QWERTY4EXAMPL3\nAWS Secret Access Key [None]: {s}\nDefault region name [None]: eu-central-1\nDefault output format [None]: json",
            "$ doctl auth init --context staging\nPlease authenticate doctl for use with your DigitalOcean account. You can generate a token in the control panel at https://cloud.digitalocean.com/account/api/tokens\n\nEnter your access token: {s}\nValidating token... ✔",
            "$ flyctl secrets set DATABASE_URL=postgres://orders:{s}@orders-db.flycast:5432/orders -a orders-api\nUpdating existing machines in 'orders-api' with rolling strategy\n  [1/2] Machine 4d89667bd26e87 [app] update succeeded",
        ),
    ),
    "pkg-creds-16": (
        "A",
        (
            "# ~/.pypirc\n[distutils]\nindex-servers =\n    pypi\n    internal\n\n[internal]\nrepository = https://pkgs.acme.dev/pypi/\nusername = ci-publisher\npassword = {s}",
            '# ~/.cargo/credentials.toml\n[registries.acme]\ntoken = "{s}"\n\n[registry]\n# crates.io token lives in the OS keyring',
            '$ cat auth.json\n{\n    "http-basic": {\n        "repo.packagist.com": {\n            "username": "token",\n            "password": "{s}"\n        }\n    }\n}',
        ),
    ),
    "lang-16a": (
        "A",
        (
            "ステージングのDBパスワードは {s} です。ログを見てもらえますか？",  # Japanese
            "Hasło do bazy na stagingu to {s}, sprawdź proszę czemu migracja się wywala",  # Polish
            "Het wachtwoord van de testdatabase is {s}, kun je kijken waarom de seed faalt?",  # Dutch
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "api-clients-16": (
        "B",
        (
            '{\n  "id": "5f1c2a9e-3b7d-4e21-9a0c-7d44e1b2c3f9",\n  "name": "orders-staging",\n  "values": [\n    { "key": "baseUrl", "value": "https://staging.orders.acme.dev", "enabled": true },\n    { "key": "apiSecret", "value": "{s}", "type": "secret", "enabled": true }\n  ],\n  "_postman_variable_scope": "environment"\n}',
            "_type: export\n__export_format: 4\nresources:\n  - _id: env_8c1f0a\n    _type: environment\n    name: Staging\n    data:\n      base_url: https://staging.acme.dev\n      admin_password: {s}",
            "curl 'https://admin.acme.dev/api/login' \\\n  -H 'accept: application/json' \\\n  -H 'content-type: application/json' \\\n  -H 'origin: https://admin.acme.dev' \\\n  --data-raw '{\"email\":\"ops@acme.dev\",\"password\":\"{s}\"}' \\\n  --compressed",
        ),
    ),
    "pw-managers-16": (
        "B",
        (
            '$ bw get item "staging mysql" | jq .login\n{\n  "username": "app_rw",\n  "password": "{s}",\n  "totp": null,\n  "passwordRevisionDate": null\n}',
            "$ op item get 'Orders DB' --fields label=username,label=password\napp_rw,{s}",
            "$ keepassxc-cli show -s ~/vault.kdbx Infra/ldap-bind\nEnter password to unlock /home/li/vault.kdbx:\nTitle: ldap-bind\nUserName: cn=bind,dc=acme,dc=lan\nPassword: {s}\nURL: ldaps://dc01.acme.lan\nNotes:",
        ),
    ),
    "lang-16b": (
        "B",
        (
            "كلمة مرور قاعدة البيانات التجريبية هي {s}، هل يمكنك معرفة سبب فشل الاتصال؟",  # Arabic
            "Testa datubāzes parole ir {s}, lūdzu, paskaties, kāpēc savienojums neizdodas",  # Latvian
            "Лозинка за тест базу је {s}, погледај зашто миграција не пролази",  # Serbian (Cyrillic)
        ),
    ),
}

LITERAL_SECRETS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "tf-output-16": (
        "A",
        (
            (
                '  # aws_db_instance.orders will be created\n  + resource "aws_db_instance" "orders" {\n      + allocated_storage     = 50\n      + engine                = "postgres"\n      + engine_version        = "16.3"\n      + identifier            = "orders-prod"\n      + instance_class        = "db.t4g.medium"\n      + password              = "Bacalhau-Nata-31"\n      + username              = "orders"\n      + vpc_security_group_ids = (known after apply)\n    }\n\nPlan: 1 to add, 0 to change, 0 to destroy.',
                "Bacalhau-Nata-31",
            ),
            (
                '$ terraform state show random_password.grafana_admin\n# random_password.grafana_admin:\nresource "random_password" "grafana_admin" {\n    bcrypt_hash      = (sensitive value)\n    id               = "none"\n    length           = 20\n    lower            = true\n    result           = "q%T9v!mWz2L@xR7c#bNe"\n    special          = true\n}',
                "q%T9v!mWz2L@xR7c#bNe",
            ),
            (
                '$ terraform output -json\n{\n  "cluster_endpoint": {\n    "sensitive": false,\n    "type": "string",\n    "value": "https://4F2A1C.gr7.eu-west-1.eks.amazonaws.com"\n  },\n  "redis_auth": {\n    "sensitive": true,\n    "type": "string",\n    "value": "kW3nYp8Rt2VxQ6mLz9Ab"\n  }\n}',
                "kW3nYp8Rt2VxQ6mLz9Ab",
            ),
            (
                '      {\n        "mode": "managed",\n        "type": "azurerm_mssql_server",\n        "name": "main",\n        "instances": [\n          {\n            "attributes": {\n              "administrator_login": "sqladmin",\n              "administrator_login_password": "Papagaio.Verde.88",\n              "fully_qualified_domain_name": "acme-sql.database.windows.net",\n              "version": "12.0"\n            },\n            "sensitive_attributes": []\n          }\n        ]\n      },',
                "Papagaio.Verde.88",
            ),
            (
                '  ~ resource "google_sql_user" "app" {\n        id       = "app//acme-prod-sql"\n        name     = "app"\n      ~ password = "marmota2022" -> "marmota2023"\n        # (4 unchanged attributes hidden)\n    }',
                "marmota2023",
            ),
            (
                '$ terraform console\n> nonsensitive(module.mq.admin_password)\n"ciocolata-Calda-5"\n> module.mq.broker_url\n"amqps://b-7c1e.mq.eu-west-1.amazonaws.com:5671"',
                "ciocolata-Calda-5",
            ),
            (
                'module "vpn" {\n  source        = "./modules/wireguard"\n  peer_name     = "office-oslo"\n  preshared_key = "0nX4vR8kQe2LpZ7sWbT1yU5hJm3cA9dFgK6iO0lN4Pw="\n  endpoint      = "vpn.acme.no:51820"\n}',
                "0nX4vR8kQe2LpZ7sWbT1yU5hJm3cA9dFgK6iO0lN4Pw=",
            ),
        ),
    ),
    "k8s-rendered-16": (
        "A",
        (
            (
                '$ kubectl get secret orders-db -n shop -o yaml\napiVersion: v1\ndata:\n  password: RmVpam9hZGEjMjAxOQ==\n  username: b3JkZXJz\nkind: Secret\nmetadata:\n  creationTimestamp: "2026-11-30T08:12:44Z"\n  name: orders-db\n  namespace: shop\n  resourceVersion: "918273"\n  uid: 0c6f3d1e-2b4a-4f7e-9d3c-5a1b2c3d4e5f\ntype: Opaque',
                "RmVpam9hZGEjMjAxOQ==",
            ),
            (
                '$ kubectl get secret smtp-relay -o jsonpath=\'{.data}\'\n{"host":"c210cC5hY21lLmRldg==","pass":"a2FwcGEtTHVtZS03Nw==","port":"NTg3"}',
                "a2FwcGEtTHVtZS03Nw==",
            ),
            (
                "$ helm get values keycloak -n auth\nUSER-SUPPLIED VALUES:\nauth:\n  adminUser: admin\n  adminPassword: Hajduk1911split\npostgresql:\n  enabled: false\nexternalDatabase:\n  host: pg.auth.svc\n  user: keycloak",
                "Hajduk1911split",
            ),
            (
                "$ docker compose config\nname: shop\nservices:\n  db:\n    environment:\n      MARIADB_DATABASE: shop\n      MARIADB_PASSWORD: tamagotchi\n      MARIADB_USER: shop\n    image: mariadb:11.4\n    networks:\n      default: null\n  web:\n    depends_on:\n      db:\n        condition: service_started\n        required: true\n    image: ghcr.io/acme/shop:1.14.2",
                "tamagotchi",
            ),
            (
                "$ kubectl get secret registry-pull -o yaml | head -4\napiVersion: v1\ndata:\n  .dockerconfigjson: eyJhdXRocyI6eyJyZWcuYWNtZS5kZXYiOnsidXNlcm5hbWUiOiJjaSIsInBhc3N3b3JkIjoiemFxMTJ3c3gifX19\nkind: Secret",
                "eyJhdXRocyI6eyJyZWcuYWNtZS5kZXYiOnsidXNlcm5hbWUiOiJjaSIsInBhc3N3b3JkIjoiemFxMTJ3c3gifX19",
            ),
            (
                "$ kubectl create secret generic ldap-bind --from-literal=LDAP_BIND_PW='Ørnen1887!' --dry-run=client -o yaml\napiVersion: v1\ndata:\n  LDAP_BIND_PW: w5hybmVuMTg4NyE=\nkind: Secret\nmetadata:\n  creationTimestamp: null\n  name: ldap-bind",
                "Ørnen1887!",
            ),
            (
                "$ kubectl get secret argocd-initial-admin-secret -n argocd -o jsonpath='{.data.password}' | base64 -d; echo\nruokala",
                "ruokala",
            ),
        ),
    ),
    "vault-cloud-16": (
        "A",
        (
            (
                "$ vault kv get secret/shop/payments\n====== Secret Path ======\nsecret/data/shop/payments\n\n======= Metadata =======\nKey                Value\n---                -----\ncreated_time       2026-12-01T09:14:22.31Z\ncustom_metadata    <nil>\ndeletion_time      n/a\ndestroyed          false\nversion            7\n\n======= Data =======\nKey              Value\n---              -----\nmerchant_id      acme-eu-0042\nwebhook_secret   Y3kP9vT2wQ8zR5nL1mX7\n",
                "Y3kP9vT2wQ8zR5nL1mX7",
            ),
            (
                '$ vault read -format=json database/creds/readonly\n{\n  "request_id": "9b1e2f3a-6c7d-4e8f-a0b1-c2d3e4f5a6b7",\n  "lease_id": "database/creds/readonly/Xq2pLm7vRt",\n  "lease_duration": 3600,\n  "renewable": true,\n  "data": {\n    "password": "A1a-hTq8ZrWm4KxPvN2e",\n    "username": "v-token-readonly-8sKz1QmT4pLw"\n  }\n}',
                "A1a-hTq8ZrWm4KxPvN2e",
            ),
            (
                "$ gcloud sql users set-password app --instance=orders-pg --password='pastel de choclo'\nUpdating Cloud SQL user...done.",
                "pastel de choclo",
            ),
            (
                "$ az storage account keys list -g rg-data -n acmedatalake -o table\nCreationTime                      KeyName    Permissions    Value\n--------------------------------  ---------  -------------  ----------------------------------------------------------------------------------------\n2026-10-02T11:40:09.123456+00:00  key1       FULL           p8V3xQ1mZ7tR2wK9yL4nB6cJ0hF5sD8gA3eU1iO7rT2vX9zM4kN6qW0bY5cE3fH8jL1pS7dG2aZ4xV9uB==\n2026-10-02T11:40:09.123456+00:00  key2       FULL           (not shown)",
                "p8V3xQ1mZ7tR2wK9yL4nB6cJ0hF5sD8gA3eU1iO7rT2vX9zM4kN6qW0bY5cE3fH8jL1pS7dG2aZ4xV9uB==",
            ),
            (
                '$ az ad sp create-for-rbac --name gha-deployer --role Contributor --scopes /subscriptions/1b2c3d4e-0000-4111-8222-333344445555\n{\n  "appId": "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",\n  "displayName": "gha-deployer",\n  "password": "Tm8Q~vX2pLz9.RkW4yN7bJc1_sDfH5gA3eU0iOq",\n  "tenant": "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"\n}',
                "Tm8Q~vX2pLz9.RkW4yN7bJc1_sDfH5gA3eU0iOq",
            ),
            (
                "$ gcloud secrets versions access latest --secret=stripe-webhook\nwhsec_9Hq2LmX7vT4pR1zK8nW3yB6cJ5sD0fGa",
                "whsec_9Hq2LmX7vT4pR1zK8nW3yB6cJ5sD0fGa",
            ),
            (
                "$ doctl databases connection orders-pg --format User,Password,Host,Port\nUser       Password                  Host                                                   Port\ndoadmin    AVNS_r7Tq2Wm9XkLp4Zv8NbY  orders-pg-do-user-1234567-0.b.db.ondigitalocean.com    25060",
                "AVNS_r7Tq2Wm9XkLp4Zv8NbY",
            ),
        ),
    ),
    "build-creds-16": (
        "A",
        (
            (
                "$ cat ~/.netrc\nmachine api.heroku.com\n  login li@acme.dev\n  password hk-2b7f91c3-8e4a-4d1f-b6c2-93ae5d7f0c18\nmachine git.heroku.com\n  login li@acme.dev\n  password hk-2b7f91c3-8e4a-4d1f-b6c2-93ae5d7f0c18",
                "hk-2b7f91c3-8e4a-4d1f-b6c2-93ae5d7f0c18",
            ),
            (
                "# project .npmrc\n@acme:registry=https://npm.pkg.acme.dev/\n//npm.pkg.acme.dev/:_password=c3RhY2tibHVlOTk=\n//npm.pkg.acme.dev/:username=ci\n//npm.pkg.acme.dev/:email=ci@acme.dev\nalways-auth=true",
                "c3RhY2tibHVlOTk=",
            ),
            (
                "$ pip config list\nglobal.index-url='https://pypi.org/simple'\nglobal.extra-index-url='https://builder:fl4mingo-Tanz@artifacts.acme.ch/api/pypi/pypi-local/simple'\nglobal.timeout='30'",
                "fl4mingo-Tanz",
            ),
            (
                "<settings>\n  <servers>\n    <server>\n      <id>acme-releases</id>\n      <username>deployer</username>\n      <password>Stroopwafel!4</password>\n    </server>\n  </servers>\n  <mirrors>\n    <mirror>\n      <id>central-proxy</id>\n      <url>https://nexus.acme.nl/repository/maven-public/</url>\n      <mirrorOf>central</mirrorOf>\n    </mirror>\n  </mirrors>\n</settings>",
                "Stroopwafel!4",
            ),
            (
                "# ~/.gradle/gradle.properties\norg.gradle.jvmargs=-Xmx4g\norg.gradle.caching=true\nsigning.keyId=4E2F91AC\nsigning.password=gjetost\\#7\nsigning.secretKeyRingFile=/home/ola/.gnupg/secring.gpg\nossrhUsername=olanordmann",
                "gjetost\\#7",
            ),
            (
                '$ yarn config get npmRegistries\n{\n  "//npm.acme.dev": {\n    "npmAlwaysAuth": true,\n    "npmAuthToken": "nptk_4Lq8Zr2VxW9mT1pK7yB3nC6sJ0dF5gH"\n  }\n}',
                "nptk_4Lq8Zr2VxW9mT1pK7yB3nC6sJ0dF5gH",
            ),
            (
                '# ~/.nuget/NuGet/NuGet.Config\n<configuration>\n  <packageSourceCredentials>\n    <acme>\n      <add key="Username" value="build" />\n      <add key="ClearTextPassword" value="Smørrebrød2024" />\n    </acme>\n  </packageSourceCredentials>\n</configuration>',
                "Smørrebrød2024",
            ),
        ),
    ),
    "lang-lit-16a": (
        "A",
        (
            ("测试环境的数据库密码是 xiongmao666，帮我看看为什么连不上", "xiongmao666"),  # Chinese (simplified)
            ("測試機的 root 密碼改成 Taipei101-tw 了，部署腳本記得一起更新", "Taipei101-tw"),  # Chinese (traditional)
            ("স্টেজিং সার্ভারের পাসওয়ার্ড হলো ilish-maach-7, লগইন করে লগগুলো দেখো", "ilish-maach-7"),  # Bengali
            ("டெஸ்ட் டேட்டாபேஸ் கடவுச்சொல் Chennai@2025 ஆகும், இணைப்பு ஏன் தோல்வியடைகிறது என்று பாருங்கள்", "Chennai@2025"),  # Tamil
            (
                "La contraseña del servidor de pruebas es ChivasCampeon10, fíjate por qué truena el deploy porfa",
                "ChivasCampeon10",
            ),  # Spanish (LatAm)
            (
                "Le mot de passe du serveur de test c'est tabarnak-Poutine9, peux-tu regarder pourquoi ça plante?",
                "tabarnak-Poutine9",
            ),  # French (CA)
            (
                "S Passwort vom Testserver isch Chuchichäschtli, chasch bitte luege wieso de Build abverheit?",
                "Chuchichäschtli",
            ),  # Swiss German
            (
                "Passordet til testdatabasen er brunost1905, kan du se hvorfor migreringen feiler?",
                "brunost1905",
            ),  # Norwegian
            (
                "Adgangskoden til testserveren er rødgrødmedfløde, kan du se hvorfor deployet fejler?",
                "rødgrødmedfløde",
            ),  # Danish
            ("Testserveri parool on Kalev-Spordi77, palun vaata, miks ühendus ei tööta", "Kalev-Spordi77"),  # Estonian
            (
                "A senha do banco de homologação é Flamengo1981, vê por que a migração tá quebrando",
                "Flamengo1981",
            ),  # Portuguese (BR)
            (
                "La password del DB di collaudo è forzajuve, controlla perché la migrazione fallisce",
                "forzajuve",
            ),  # Italian
            (
                "Lykilorðið á prófunarþjóninum er Eyjafjallajökull10, geturðu athugað af hverju tengingin bregst?",
                "Eyjafjallajökull10",
            ),  # Icelandic
        ),
    ),
    "short-teams-pets-16": (
        "A",
        (
            ("$ redis-cli -h cache01 -a bella --no-auth-warning ping\nPONG", "bella"),
            (
                "$ mongosh 'mongodb://admin:arsenal@10.0.4.12:27017/?authSource=admin' --quiet --eval 'db.stats().collections'\n42",
                "arsenal",
            ),
            (
                "$ PGPASSWORD=celtic1888 psql -h 10.0.4.20 -U reporting -d warehouse -c 'select count(*) from orders'\n  count\n---------\n 1840211\n(1 row)",
                "celtic1888",
            ),
            ("[client]\nuser=backup\npassword=whiskers\nhost=db-replica.lan", "whiskers"),
            (
                "$ mysql -h db01 -u root -ppatagonia -e 'SHOW SLAVE STATUS\\G' | grep Seconds_Behind\n        Seconds_Behind_Master: 0",
                "patagonia",
            ),
            ("RABBITMQ_DEFAULT_USER=shop\nRABBITMQ_DEFAULT_PASS=LIVERPOOL\nRABBITMQ_DEFAULT_VHOST=/shop", "LIVERPOOL"),
            (
                "$ rabbitmqctl add_user grafana marmalade\nAdding user \"grafana\" ...\nDone. Don't forget to grant the user permissions to some virtual hosts! See 'rabbitmqctl help set_permissions' to learn more.",
                "marmalade",
            ),
            ("$ mc alias set nas http://10.0.0.5:9000 minio reykjavik\nAdded `nas` successfully.", "reykjavik"),
        ),
    ),
    "escaped-16a": (
        "A",
        (
            ('variable "db_password" {\n  type    = string\n  default = "pa$${HOME}ss\\\\wd"\n}', "pa$${HOME}ss\\\\wd"),
            ('[database]\nhost = "10.0.4.20"\nuser = "etl"\npassword = "say \\"cheese\\" 42"\n', 'say \\"cheese\\" 42'),
            (
                '<Resource name="jdbc/orders" auth="Container" type="javax.sql.DataSource"\n          username="orders" password="Tom&amp;Jerry&lt;3"\n          url="jdbc:postgresql://db01:5432/orders"/>',
                "Tom&amp;Jerry&lt;3",
            ),
            ("$ export DB_PASS='it'\\''s-50%-off;ok'\n$ ./migrate.sh up", "it'\\''s-50%-off;ok"),
            (
                "spring.datasource.url=jdbc:mysql://db01:3306/shop\nspring.datasource.username=shop\nspring.datasource.password=ab\\=cd\\:ef\\\\gh#1",
                "ab\\=cd\\:ef\\\\gh#1",
            ),
            ('[Service]\nEnvironment="SMTP_PASS=100%%sicher;ja"\nExecStart=/usr/local/bin/mailer', "100%%sicher;ja"),
            (
                "$ docker run -e 'MSSQL_SA_PASSWORD=Kr0k0dil$$Tränen' -e ACCEPT_EULA=Y mcr.microsoft.com/mssql/server:2022-latest",
                "Kr0k0dil$$Tränen",
            ),
        ),
    ),
    "key-wrappers-16": (
        "A",
        (
            (
                '{\n  "kty": "OKP",\n  "crv": "Ed25519",\n  "kid": "signer-2026-12",\n  "x": "H9RZiQlWX_ViK9Jb2hBcggpX3Fdd4UAIPIC_hmBpw-s",\n  "d": "6jtVcUfTRT2sfQINE2goOZlNesG4IeF4f6zALKYnozY"\n}',
                "6jtVcUfTRT2sfQINE2goOZlNesG4IeF4f6zALKYnozY",
            ),
            (
                '{"keys":[{"kty":"EC","crv":"P-256","use":"sig","kid":"k2","x":"j7t0htZx6BDTyrjl6XUjnogENvD-pr-_i3_1nU8Ztt4","y":"6Hdr58Y1HSeLhTjgW5mM8y8Hzck3duYRc2o3R8ub46c","d":"8hObtlHdr7Sqts4AEIw360KF0MFr1wCQc5gO-bV28vs"}]}',
                "8hObtlHdr7Sqts4AEIw360KF0MFr1wCQc5gO-bV28vs",
            ),
            (
                "SIGNING_KEY_PKCS8=MC4CAQAwBQYDK2VwBCIEICIVaLE6HuU4lrnsgLV3u4yv97GUTslM11d6UHpveqT8\nSIGNING_KEY_ID=2026-12-a",
                "MC4CAQAwBQYDK2VwBCIEICIVaLE6HuU4lrnsgLV3u4yv97GUTslM11d6UHpveqT8",
            ),
            (
                "apns:\n  team_id: 8K3Q2M7XZA\n  key_id: 4V9H2K1L6P\n  p8: MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgsMG7XranPwDa2IHQMqOPMu+M4niCPhvH3VD89mbOFbyhRANCAASIw/X4Ja6TJkZpA0Dip9X16T1iKrgl0/DCavAyhgBMSrg6+M5vWSwL0fxpmziLWU9BruN8tmohoMa7EPAflRgb",
                "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgsMG7XranPwDa2IHQMqOPMu+M4niCPhvH3VD89mbOFbyhRANCAASIw/X4Ja6TJkZpA0Dip9X16T1iKrgl0/DCavAyhgBMSrg6+M5vWSwL0fxpmziLWU9BruN8tmohoMa7EPAflRgb",
            ),
            (
                'val privateKeyDer = Base64.getDecoder().decode(\n    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCQBOFoRN7uyQhzY48U4tlK+WYNyJ4s7AVsriSAOeXEO/oT+gj+qPhU3SX81l4LBPInh6KQ7iUFsrimKOBw3f0K0WesYwptvE0OXDsi8HVzH6/Vlvl9yJbZO8iHWlpTvaM9hBOGdnUftFbLZF+vmLFdcA05B9X79qUWsVX6+NGcwA5f4A0R6u+7iNKnxeVTBFwBPL8kEMQLO8si6B0jPxXZWD1sak0pnvpXa9T3chG+EXi0fPM="\n)\nval keySpec = PKCS8EncodedKeySpec(privateKeyDer)',
                "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCQBOFoRN7uyQhzY48U4tlK+WYNyJ4s7AVsriSAOeXEO/oT+gj+qPhU3SX81l4LBPInh6KQ7iUFsrimKOBw3f0K0WesYwptvE0OXDsi8HVzH6/Vlvl9yJbZO8iHWlpTvaM9hBOGdnUftFbLZF+vmLFdcA05B9X79qUWsVX6+NGcwA5f4A0R6u+7iNKnxeVTBFwBPL8kEMQLO8si6B0jPxXZWD1sak0pnvpXa9T3chG+EXi0fPM=",
            ),
            (
                "$ cat session.key | xxd -p\n9e689e45ba1cd758618e944dc1732a232d1ebd1084983d13ebf093045042f510",
                "9e689e45ba1cd758618e944dc1732a232d1ebd1084983d13ebf093045042f510",
            ),
            (
                "FERNET_KEYS=nVXeIMDReuNzA4APxXThZ5f_0Vcic0bwQ_x0fwgZj_Q=\nFERNET_ROTATE_DAYS=30",
                "nVXeIMDReuNzA4APxXThZ5f_0Vcic0bwQ_x0fwgZj_Q=",
            ),
        ),
    ),
    "structure-only-16a": (
        "A",
        (
            (
                "$ cat ~/.config/orders/cli.yaml\nendpoint: https://orders.acme.dev\nuser: li\nauth: Bd7qX2mLw9Rz",
                "Bd7qX2mLw9Rz",
            ),
            ("$ sshpass -f <(echo fjordhest) rsync -a build/ deploy@web01:/srv/www/", "fjordhest"),
            (
                '$ curl -su ops:kaktus77 https://jenkins.acme.dev/job/release/lastBuild/api/json | jq .result\n"SUCCESS"',
                "kaktus77",
            ),
            ("jdbc:oracle:thin:scott/tiger99x@//ora01.acme.lan:1521/ORCLPDB1", "tiger99x"),
            (
                '$ expect -c \'spawn ssh admin@10.0.9.2; expect "assword:"; send "Lofoten-Kyst3\\r"; interact\'',
                "Lofoten-Kyst3",
            ),
            (
                "LDAP_URI=ldaps://dc01.acme.lan\nLDAP_BIND=cn=svc-wiki,ou=svc,dc=acme,dc=lan\nLDAP_BIND_CRED=vikingskip",
                "vikingskip",
            ),
            ("sftp://upload:Tulpen-Feld-12@files.acme.nl:2222/incoming", "Tulpen-Feld-12"),
        ),
    ),
    "vendor-16a": (
        "A",
        (
            (
                "$ railway variables\nRAILWAY_TOKEN                 rwy_live_7Hq2LmX9vT4pR1zK8nW3yB6cJ5sD0f\nRAILWAY_ENVIRONMENT           production",
                "rwy_live_7Hq2LmX9vT4pR1zK8nW3yB6cJ5sD0f",
            ),
            (
                "# .env.local\nNEON_API_KEY=napi_q8w3e5r7t9y2u4i6o1p3a5s7d9f2g4h6j8k1l3z5x7c9v2b4n6m8\nNEON_PROJECT_ID=falling-sun-482913",
                "napi_q8w3e5r7t9y2u4i6o1p3a5s7d9f2g4h6j8k1l3z5x7c9v2b4n6m8",
            ),
            (
                "$ turso db tokens create orders-eu\neyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3NjQ5MjY0MDAsImlkIjoiOWIxZTJmM2EifQ.q2Lm7vRtXk9pZ4wN8bY1cJ5sD0fGaH3eU6iO2rT7vX9zM4kN6qW0bY5cE3fH8jL1pS",
                "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3NjQ5MjY0MDAsImlkIjoiOWIxZTJmM2EifQ.q2Lm7vRtXk9pZ4wN8bY1cJ5sD0fGaH3eU6iO2rT7vX9zM4kN6qW0bY5cE3fH8jL1pS",
            ),
            (
                "UPSTASH_REDIS_REST_URL=https://eu1-quiet-otter-38211.upstash.io\nUPSTASH_REDIS_REST_TOKEN=AZVvASQgOWIxZTJmM2EtNmM3ZC00ZThmLWEwYjEtYzJkM2U0ZjVhNmI3Yzk4ZDFlMmY",
                "AZVvASQgOWIxZTJmM2EtNmM3ZC00ZThmLWEwYjEtYzJkM2U0ZjVhNmI3Yzk4ZDFlMmY",
            ),
            (
                "$ pscale service-token create --org acme\n  ID             NAME   TOKEN\n  k2x9q4w7e1r5   ci     pscale_tkn_vRUnUyUuqjaDw1xUFCtJHljfYe6hTUIbjQ2W3Qnzs6n",
                "pscale_tkn_vRUnUyUuqjaDw1xUFCtJHljfYe6hTUIbjQ2W3Qnzs6n",
            ),
            (
                "koyeb:\n  org: acme\n  token: 4EWMOUdU0WjOaGwpcsczZSeVLLjC8U7o5lBPtjwIDylzrPlzCuAAoZfgFRIb",
                "4EWMOUdU0WjOaGwpcsczZSeVLLjC8U7o5lBPtjwIDylzrPlzCuAAoZfgFRIb",
            ),
            (
                "$ export CONVEX_DEPLOY_KEY='prod:happy-heron-512|eyJ2MiI6IjdlMWYyYTNiNGM1ZDRlNmY4YTliMGMxZDJlM2Y0YTViIn0='\n$ npx convex deploy",
                "prod:happy-heron-512|eyJ2MiI6IjdlMWYyYTNiNGM1ZDRlNmY4YTliMGMxZDJlM2Y0YTViIn0=",
            ),
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "db-gui-16": (
        "B",
        (
            (
                '{\n  "folders": {},\n  "connections": {\n    "postgres-jdbc-18c2f4a1b7e-3d9a1c0e5f2b7a44": {\n      "provider": "postgresql",\n      "driver": "postgres-jdbc",\n      "name": "orders (staging)",\n      "configuration": {\n        "host": "pg-staging.acme.dev",\n        "port": "5432",\n        "database": "orders",\n        "url": "jdbc:postgresql://pg-staging.acme.dev:5432/orders",\n        "user": "analyst",\n        "password": "Sarajevo-Cevapi-84",\n        "type": "dev"\n      }\n    }\n  }\n}',
                "Sarajevo-Cevapi-84",
            ),
            (
                '<data-source source="LOCAL" name="reports@mysql01" uuid="2b7c1d4e-9f3a-4c8e-b1d2-7e6f5a4b3c2d">\n  <driver-ref>mysql.8</driver-ref>\n  <jdbc-url>jdbc:mysql://mysql01.acme.lan:3306/reports?user=reports&amp;password=Vilnius1323</jdbc-url>\n  <working-dir>$ProjectFileDir$</working-dir>\n</data-source>',
                "Vilnius1323",
            ),
            (
                "# ~/.jupyter/jupyter_server_config.py\nc.ServerApp.ip = '0.0.0.0'\nc.ServerApp.port = 8888\nc.ServerApp.open_browser = False\nc.IdentityProvider.token = 'd4e1f7a2c9b3e6f0a8d5c2b7e4f1a9c6'\nc.ServerApp.root_dir = '/home/ana/notebooks'",
                "d4e1f7a2c9b3e6f0a8d5c2b7e4f1a9c6",
            ),
            (
                "[I 2026-12-05 10:41:17.823 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2026-12-05 10:41:17.823 ServerApp] http://gpu02:8888/tree?token=9697c61351c63b13126554151b86395a78ffd26f1860603c\n[I 2026-12-05 10:41:17.823 ServerApp]     http://127.0.0.1:8888/tree?token=9697c61351c63b13126554151b86395a78ffd26f1860603c\n[I 2026-12-05 10:41:17.823 ServerApp] Use Control-C to stop this server and shut down all kernels (twice to skip confirmation).",
                "9697c61351c63b13126554151b86395a78ffd26f1860603c",
            ),
            (
                '{\n  "ConnectionList": [\n    {\n      "Name": "prod-ro",\n      "Driver": "PostgreSQL",\n      "Host": "10.20.0.15",\n      "Port": "5432",\n      "User": "readonly",\n      "Password": "Zagreb#Dinamo45",\n      "Database": "shop",\n      "Environment": "production"\n    }\n  ]\n}',
                "Zagreb#Dinamo45",
            ),
            (
                "[dbeaver] Connecting to mssql01 ...\nConnection properties: {user=sa, password=Kecskemét-Barack9, encrypt=true, trustServerCertificate=true}\nLogin failed for user 'sa'.",
                "Kecskemét-Barack9",
            ),
            (
                "$ cat ~/.pgpass\n# hostname:port:database:username:password\npg-staging.acme.dev:5432:orders:analyst:Bratislava\\:Hrad7\n*:*:*:postgres:postgres",
                "Bratislava\\:Hrad7",
            ),
        ),
    ),
    "har-curl-16": (
        "B",
        (
            (
                '        "request": {\n          "method": "POST",\n          "url": "https://auth.acme.dev/oauth/token",\n          "httpVersion": "HTTP/2",\n          "postData": {\n            "mimeType": "application/x-www-form-urlencoded",\n            "params": [\n              { "name": "grant_type", "value": "password" },\n              { "name": "username", "value": "maja.horvat" },\n              { "name": "password", "value": "Plitvice2020!" }\n            ]\n          }\n        },',
                "Plitvice2020!",
            ),
            (
                '          "headers": [\n            { "name": "accept", "value": "application/json" },\n            { "name": "authorization", "value": "Bearer 8TmGr95I3Bd8yAAYnWZXfYyuFZorxLX5MBcenSPP01eyYZZV" },\n            { "name": "x-client-version", "value": "4.18.0" }\n          ],',
                "8TmGr95I3Bd8yAAYnWZXfYyuFZorxLX5MBcenSPP01eyYZZV",
            ),
            (
                "curl 'https://shop.acme.dev/api/cart' \\\n  -H 'accept: */*' \\\n  -H 'accept-language: sl-SI,sl;q=0.9,en;q=0.8' \\\n  -b 'cookieconsent=1; _ga=GA1.1.1384721.1764900000; sid=s%3A1mTKJXl1zNwvRTMtneJPyRrL5bemsV3o.Kq2Lm7vRtXk9pZ4wN8bY1cJ5sD0fGaH3eU6iO2rT7vX' \\\n  -H 'referer: https://shop.acme.dev/cart' \\\n  --compressed",
                "s%3A1mTKJXl1zNwvRTMtneJPyRrL5bemsV3o.Kq2Lm7vRtXk9pZ4wN8bY1cJ5sD0fGaH3eU6iO2rT7vX",
            ),
            (
                'curl \'https://grafana.acme.dev/login\' \\\n  -H \'content-type: application/json\' \\\n  --data-raw $\'{"user":"admin","password":"Ljubljana\\\\u0027s-Zmaj"}\' \\\n  --insecure',
                "Ljubljana\\\\u0027s-Zmaj",
            ),
            (
                'fetch("https://api.acme.dev/v2/reports", {\n  "headers": {\n    "accept": "application/json",\n    "x-api-key": "EcjAfXgU1L9MieRTitjIextB1Zvmcrfl",\n    "sec-fetch-mode": "cors"\n  },\n  "method": "GET",\n  "mode": "cors",\n  "credentials": "include"\n});',
                "EcjAfXgU1L9MieRTitjIextB1Zvmcrfl",
            ),
            (
                'Invoke-WebRequest -UseBasicParsing -Uri "https://erp.acme.dev/api/session" `\n-Method "POST" `\n-ContentType "application/x-www-form-urlencoded" `\n-Body "login=k.petrov&pass=Sofia%26Vitosha%2B1"',
                "Sofia%26Vitosha%2B1",
            ),
            (
                '          "queryString": [\n            { "name": "session", "value": "2f9c" },\n            { "name": "access_token", "value": "pq0nibkj58o7nvBGFdzpTrruxbcHpoLtcde41giV" }\n          ],',
                "pq0nibkj58o7nvBGFdzpTrruxbcHpoLtcde41giV",
            ),
        ),
    ),
    "git-creds-16": (
        "B",
        (
            (
                "$ printf 'protocol=https\\nhost=git.acme.dev\\n\\n' | git credential fill\nprotocol=https\nhost=git.acme.dev\nusername=marko\npassword=glpat-Xv7Qm2LpR9tK4wZ8nB3c",
                "glpat-Xv7Qm2LpR9tK4wZ8nB3c",
            ),
            (
                "$ cat ~/.git-credentials\nhttps://bob:Tirana-Skanderbeg1468@bitbucket.acme.al\nhttps://x-access-token:1RAxCwCt80LNVGcfZJsjJIaBi5B7a4xadS@github.com",
                "Tirana-Skanderbeg1468",
            ),
            (
                "$ git remote -v\norigin\thttps://oauth2:nhkmJaqC8AImKcDc1mJY60kdve@gitlab.acme.mk/platform/api.git (fetch)\norigin\thttps://oauth2:nhkmJaqC8AImKcDc1mJY60kdve@gitlab.acme.mk/platform/api.git (push)",
                "nhkmJaqC8AImKcDc1mJY60kdve",
            ),
            (
                "commit 7c1e9a2b4d6f8a0c3e5b7d9f1a2c4e6b8d0f2a4c\nAuthor: Jonas Petraitis <jonas@acme.lt>\nDate:   Thu Dec 3 17:02:41 2026 +0200\n\n    fix staging login (admin pw is now Trakai-Pilis88, tell QA)",
                "Trakai-Pilis88",
            ),
            (
                "$ git log --oneline -5\n3f2a1c9 bump deps\n8e7d6c5 revert: remove hardcoded smtp pass 'Ohrid#Lake1979'\n1b2c3d4 add mailer\n9a8b7c6 ci: cache pnpm store\n5e4f3a2 init",
                "Ohrid#Lake1979",
            ),
            (
                "$ git stash show -p stash@{0}\n--- a/.env\n+++ b/.env\n@@ -3,3 +3,3 @@\n-REDIS_PASSWORD=\n+REDIS_PASSWORD=Beograd-Kalemegdan9\n LOG_LEVEL=debug",
                "Beograd-Kalemegdan9",
            ),
            (
                '[credential "https://git.acme.dev"]\n\thelper = "!f() { echo username=ci; echo password=yRrL5bemsV3okrjyAiZ09BWrXLguYK; }; f"',
                "yRrL5bemsV3okrjyAiZ09BWrXLguYK",
            ),
        ),
    ),
    "chat-mail-16": (
        "B",
        (
            (
                "[10:42] Ana Kovač: evo pristupa za staging\n[10:42] Ana Kovač: user: deploy\n[10:42] Ana Kovač: pass: Mostar1566\n[10:43] Ana Kovač: nemoj ga stavljati u repo molim te",
                "Mostar1566",
            ),
            (
                "---------- Forwarded message ---------\nFrom: IT Helpdesk <helpdesk@acme.si>\nDate: Wed, Dec 2, 2026 at 9:14 AM\nSubject: Your VPN account\nTo: Luka Novak <luka@acme.si>\n\nHi Luka,\n\nyour temporary VPN credentials:\n  Username: lnovak\n  Temporary password: Bled-Otok-2718\n\nYou will be asked to change it at first login.\n\nIT Helpdesk",
                "Bled-Otok-2718",
            ),
            (
                "OCR of screenshot (Screenshot 2026-12-04 at 16.22.10.png):\nWi-Fi Settings\nNetwork  ACME-Guest\nSecurity WPA2 Personal\nPassword kavarna-Presern-7\nShow password [x]",
                "kavarna-Presern-7",
            ),
            (
                "> **mario.rossi** commented on `deploy/values-staging.yaml` line 14:\n> Please don't commit `Dolomiti!2024` here, that's the real staging admin password. Use the sealed secret.",
                "Dolomiti!2024",
            ),
            (
                "    # TODO(petra): remove before merge, sftp pw for the partner drop = Kosice_Dom_33\n    client.connect(host, username='partner', password=os.environ['PARTNER_SFTP_PW'])",
                "Kosice_Dom_33",
            ),
            (
                "From: Mateja <mateja@acme.hr>\n> > can you resend the db creds?\n> sure: reporting / Split.Riva.1700\n> (read-only, expires Friday)",
                "Split.Riva.1700",
            ),
            (
                "Teams message from Dimitar Georgiev (9:05):\nздрасти, паролата за staging базата е Rila-Manastir-927, смених я вчера",
                "Rila-Manastir-927",
            ),
        ),
    ),
    "logs-fixtures-16": (
        "B",
        (
            (
                "2026-12-05T07:12:44.118Z ERROR auth.service - login failed for user=admin password=Ananas-Kula-3 reason=INVALID_CREDENTIALS ip=10.0.3.17",
                "Ananas-Kula-3",
            ),
            (
                "Dec  5 07:14:02 gw01 dovecot: auth: Debug: passwd-file(marta,10.0.3.44): SHA256-CRYPT(Kaunas1408) != '$5$rounds=5000$saltsalt$...'",
                "Kaunas1408",
            ),
            (
                'psycopg.OperationalError: connection failed: FATAL:  password authentication failed for user "etl"\nDSN: host=10.0.4.20 port=5432 dbname=warehouse user=etl password=Rijeka_Luka_77 sslmode=require',
                "Rijeka_Luka_77",
            ),
            (
                '# tests/fixtures/users.json\n[\n  {"email": "qa-admin@acme.dev", "password": "Morava-Sumava4", "role": "admin"},\n  {"email": "qa-user@acme.dev", "password": "changeme", "role": "user"}\n]',
                "Morava-Sumava4",
            ),
            (
                "E   AssertionError: login returned 401\nE   assert 401 == 200\nE    +  where 401 = <Response [401]>.status_code\n\nself = <tests.e2e.test_login.TestLogin object at 0x7f3a2c1e9d50>\ncreds = {'user': 'e2e-bot', 'pass': 'Zulu-Indlovu-12'}",
                "Zulu-Indlovu-12",
            ),
            (
                '[2026-12-05 08:01:33] local.WARNING: SMTP auth failed {"host":"smtp.acme.dev","username":"noreply","password":"Ibadan#Oja5","code":535}',
                "Ibadan#Oja5",
            ),
            (
                "ldap_bind: Invalid credentials (49)\n\tadditional info: 80090308: LdapErr: DSID-0C090439, comment: AcceptSecurityContext error, data 52e, v4563\n+ ldapwhoami -x -H ldap://dc01 -D svc-print@acme.lan -w 'Klaipeda Uostas 1252'",
                "Klaipeda Uostas 1252",
            ),
        ),
    ),
    "lang-lit-16b": (
        "B",
        (
            (
                "Slaptažodis testinei duomenų bazei yra Zalgiris1410, pažiūrėk, kodėl migracija lūžta",
                "Zalgiris1410",
            ),  # Lithuanian
            (
                "Heslo k testovacej databáze je bryndzove-halusky, pozri prosím, prečo padá nasadenie",
                "bryndzove-halusky",
            ),  # Slovak
            (
                "Geslo za testni strežnik je Triglav2864, poglej prosim, zakaj povezava ne deluje",
                "Triglav2864",
            ),  # Slovenian
            ("Lozinka za testnu bazu je hajdukzivivjecno, pogledaj zašto deploy puca", "hajdukzivivjecno"),  # Croatian
            (
                "Lozinka za staging server je Zvezda-Marakana91, vidi zašto pada konekcija",
                "Zvezda-Marakana91",
            ),  # Serbian (Latin)
            (
                "Паролата за тестовата база е баница2024, виж защо връзката се разпада",
                "баница2024",
            ),  # Bulgarian (value in Cyrillic)
            ("Лозинката за тест серверот е Вардар1947, погледни зошто паѓа миграцијата", "Вардар1947"),  # Macedonian
            (
                "Fjalëkalimi i serverit të testimit është Shqiponja-1912, shiko pse dështon lidhja",
                "Shqiponja-1912",
            ),  # Albanian
            (
                "Kata laluan pangkalan data ujian ialah nasilemak88, tolong semak kenapa sambungan gagal",
                "nasilemak88",
            ),  # Malay
            (
                "Ang password ng staging DB ay adobo-Sinigang7, pakitingnan kung bakit nag-fail ang migration",
                "adobo-Sinigang7",
            ),  # Filipino
            (
                "Iphasiwedi yeseva lokuhlola ngu-Amandla-Ngawethu5, sicela ubheke ukuthi kungani ukuxhumana kwehluleka",
                "Amandla-Ngawethu5",
            ),  # Zulu
            (
                "Ọ̀rọ̀ aṣínà fún olupin ìdánwò ni Olumo-Rock-1830, jọ̀ọ́ wo ìdí tí ìsopọ̀ fi ń kùnà",
                "Olumo-Rock-1830",
            ),  # Yoruba
            (
                "스테이징 DB 비밀번호 '한강라면2024!' 로 바꿨어요, 배포 스크립트도 수정해 주세요",
                "한강라면2024!",
            ),  # Korean (value in Hangul)
        ),
    ),
    "sentences-nonlatin-16": (
        "B",
        (
            (
                'ADMIN_PASSPHRASE="the owl flies at midnight over Riga"\nADMIN_EMAIL=ops@acme.lv',
                "the owl flies at midnight over Riga",
            ),
            (
                "$ 7z x backup-2026-11.7z -p'my cat hates mondays!!'\nEverything is Ok\n\nFiles: 1482\nSize:       2839102211",
                "my cat hates mondays!!",
            ),
            ('vpn:\n  user: ahmed\n  secret: "القاهرة٢٠٢٤"\n  server: vpn.acme.eg', "القاهرة٢٠٢٤"),
            (
                "$ unzip -P aaaaaaaa1111 invoices-2026.zip\nArchive:  invoices-2026.zip\n  inflating: invoices/2026-11.pdf",
                "aaaaaaaa1111",
            ),
            ("KEYCLOAK_ADMIN=admin\nKEYCLOAK_ADMIN_PASSWORD=1qaz!QAZ2wsx@WSX", "1qaz!QAZ2wsx@WSX"),
            (
                'pgbouncer userlist.txt:\n"app" "zxcvbnm,./"\n"stats" "md5a3f5c2b7e9d1f4a6c8e0b2d4f6a8c1e3"',
                "zxcvbnm,./",
            ),
            (
                "$ openssl pkcs12 -in client.p12 -nodes -passin pass:P@55w0rd_Pr1ncess -out client.pem\nMAC verified OK",
                "P@55w0rd_Pr1ncess",
            ),
            ('mqtt:\n  broker: 10.0.0.20\n  username: zigbee\n  password: "ทะเลสีคราม99"', "ทะเลสีคราม99"),
        ),
    ),
    "ssh-json-16": (
        "B",
        (
            (
                '{\n  "name": "bastion-prod",\n  "host": "203.0.113.40",\n  "username": "ubuntu",\n  "privateKey": "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\\nQyNTUxOQAAACAAMdWbKoUeneqDqq5KHjyyMzPO0ePTdiDKsd7LT5N/H+Xn8m/o0O+Gl+aM\\nXcghNFuQ4VgYhTYfSGlhm+RYOUq3q7a9ZpCQ3boprOx7aQYB2d+XaYnAsN395J82pw29B3\\nWGYqOXpxmXcnHKqtbs61dhh1xSaX0BYwowlI1UBLYm/tPn20NcTJ9kxYiEwGRaMZQ+h4dC\\n53XrnCO1kicRUhb6P1nQ6j/Eh1EBFXKrFaNtPzOEaRg9nWHnSi6FZ+Lsk0QgfzS6a9NyLw\\n==\\n-----END OPENSSH PRIVATE KEY-----\\n",\n  "port": 22\n}',
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\\nQyNTUxOQAAACAAMdWbKoUeneqDqq5KHjyyMzPO0ePTdiDKsd7LT5N/H+Xn8m/o0O+Gl+aM\\nXcghNFuQ4VgYhTYfSGlhm+RYOUq3q7a9ZpCQ3boprOx7aQYB2d+XaYnAsN395J82pw29B3\\nWGYqOXpxmXcnHKqtbs61dhh1xSaX0BYwowlI1UBLYm/tPn20NcTJ9kxYiEwGRaMZQ+h4dC\\n53XrnCO1kicRUhb6P1nQ6j/Eh1EBFXKrFaNtPzOEaRg9nWHnSi6FZ+Lsk0QgfzS6a9NyLw\\n==",
            ),
            (
                '$ op item get "deploy key" --format json | jq -r .fields[2]\n{\n  "id": "private_key",\n  "type": "SSHKEY",\n  "label": "private key",\n  "value": "-----BEGIN OPENSSH PRIVATE KEY-----\\r\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\\r\\nQyNTUxOQAAACByn1yF5WBwHGVRTF4XVLYstYoeSNKEYbPZl+Lq+ezjtMFoGVkIoAlVcJSn\\r\\niD+r4jR20839+VKBEsooOtpeRwr/Dzv+CSQZkj3HEsyxOFwr5v8cnsfgdtqUjHWojGlW/F\\r\\n+qwl22pEbFeYw7CflANdZsHvbdlZsYXWkhuT52wAF7+AQmi16Fpl5bKK+9k/Vr+tc6utX7\\r\\nw0YnUzAFzlYqZV6evFhhjLIKggJewwVViPILbR+0ti2MYCDRlAZrYsux5yjNbSoGwaZyew\\r\\n==\\r\\n-----END OPENSSH PRIVATE KEY-----\\r\\n"\n}',
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\\r\\nQyNTUxOQAAACByn1yF5WBwHGVRTF4XVLYstYoeSNKEYbPZl+Lq+ezjtMFoGVkIoAlVcJSn\\r\\niD+r4jR20839+VKBEsooOtpeRwr/Dzv+CSQZkj3HEsyxOFwr5v8cnsfgdtqUjHWojGlW/F\\r\\n+qwl22pEbFeYw7CflANdZsHvbdlZsYXWkhuT52wAF7+AQmi16Fpl5bKK+9k/Vr+tc6utX7\\r\\nw0YnUzAFzlYqZV6evFhhjLIKggJewwVViPILbR+0ti2MYCDRlAZrYsux5yjNbSoGwaZyew\\r\\n==",
            ),
            (
                '$ bw get item "staging db" | jq .login\n{\n  "uris": [{ "match": null, "uri": "postgres://pg-staging.acme.dev" }],\n  "username": "app_rw",\n  "password": "Daugava*Riga*1201",\n  "totp": "otpauth://totp/acme:app_rw?secret=JBSWY3DPK5XXE3DEJ5TE6QKUJA&issuer=acme"\n}',
                "Daugava*Riga*1201",
            ),
            (
                '$ op read "op://Infra/ci-runner/credential"\nrnr_5bKq8Lm2Vx7Tz9Wp4Rn1Yc3Hd6Jf0Gs',
                "rnr_5bKq8Lm2Vx7Tz9Wp4Rn1Yc3Hd6Jf0Gs",
            ),
            (
                "$ gopass show infra/mqtt/broker\nPl0vdiv-Tepe-6000\nusername: broker-admin\nurl: mqtts://mqtt.acme.bg:8883",
                "Pl0vdiv-Tepe-6000",
            ),
            (
                "$ pass show email/noreply\nIkeja-Market-44\nsmtp: smtp.acme.ng:587",
                "Ikeja-Market-44",
            ),
            (
                '{"type":"service_account","client_email":"ci@acme-ops.iam.gserviceaccount.com","ssh_key":{"public":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq2LmX7vT4pR1zK8nW3yB6cJ5sD0fGaH3eU6iO2rT7v ci","private":"-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\\nQyNTUxOQAAACBNq4Wz8Lm2Tx7Vp9Rk3Yc1Hd6Jf0GsKe5Bn2Xq8Za4Wm7Lt2Vy9Pr4Ns1\\n-----END OPENSSH PRIVATE KEY-----\\n"}}',
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\\nQyNTUxOQAAACBNq4Wz8Lm2Tx7Vp9Rk3Yc1Hd6Jf0GsKe5Bn2Xq8Za4Wm7Lt2Vy9Pr4Ns1",
            ),
        ),
    ),
    "mid-output-16b": (
        "B",
        (
            (
                "$ ./gradlew bootRun --info\n> Task :compileJava UP-TO-DATE\n> Task :processResources UP-TO-DATE\n> Task :classes UP-TO-DATE\n> Task :bootRun\n\n  .   ____          _            __ _ _\n /\\\\ / ___'_ __ _ _(_)_ __  __ _ \\ \\ \\ \\\n( ( )\\___ | '_ | '_| | '_ \\/ _` | \\ \\ \\ \\\n\n2026-12-05T09:02:11.411Z  INFO 41822 --- [main] c.a.orders.OrdersApplication : Starting OrdersApplication v2.7.0\n2026-12-05T09:02:11.902Z DEBUG 41822 --- [main] o.s.b.c.c.ConfigDataEnvironment : spring.datasource.password=Vltava-Most-1357 (from class path resource [application-local.yml])\n2026-12-05T09:02:12.118Z  INFO 41822 --- [main] o.s.b.w.e.tomcat.TomcatWebServer : Tomcat initialized with port 8080 (http)\n2026-12-05T09:02:13.550Z  INFO 41822 --- [main] c.a.orders.OrdersApplication : Started OrdersApplication in 2.41 seconds",
                "Vltava-Most-1357",
            ),
            (
                "$ env | sort\nCOLORTERM=truecolor\nHOME=/home/runner\nHOSTNAME=ci-7f4c9\nLANG=C.UTF-8\nLOGNAME=runner\nNODE_ENV=test\nNPM_CONFIG_CACHE=/home/runner/.npm\nPATH=/usr/local/bin:/usr/bin:/bin\nPWD=/builds/acme/web\nSHLVL=1\nSONAR_LOGIN=26a4f8c0e2b6d1f3a5c7e9b0d2f4a6c8e1b3d5f7\nTERM=xterm-256color\nTZ=Europe/Riga\nUSER=runner\n_=/usr/bin/env",
                "26a4f8c0e2b6d1f3a5c7e9b0d2f4a6c8e1b3d5f7",
            ),
            (
                "$ docker inspect orders-api --format '{{json .Config.Env}}' | jq -r '.[]'\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nLANG=C.UTF-8\nPYTHON_VERSION=3.12.7\nAPP_ENV=staging\nAPP_WORKERS=4\nAPP_DB=postgresql://orders:Kaunas-Zalgiris-7@pg-staging:5432/orders\nAPP_LOG_LEVEL=info\nAPP_SENTRY_ENVIRONMENT=staging",
                "Kaunas-Zalgiris-7",
            ),
            (
                "$ systemctl show grafana-server -p Environment --no-pager\nEnvironment=GF_PATHS_DATA=/var/lib/grafana GF_PATHS_LOGS=/var/log/grafana GF_SERVER_HTTP_PORT=3000 GF_SECURITY_ADMIN_USER=admin GF_SECURITY_ADMIN_PASSWORD=Sokol-Tatra-2655 GF_USERS_ALLOW_SIGN_UP=false GF_AUTH_ANONYMOUS_ENABLED=false",
                "Sokol-Tatra-2655",
            ),
            (
                '$ npm run seed --verbose\nnpm verb cli /usr/bin/node /usr/lib/node_modules/npm/bin/npm-cli.js\nnpm info using npm@10.8.2\nnpm info using node@v20.17.0\nnpm verb title npm run seed\nnpm verb argv "run" "seed" "--loglevel" "verbose"\n\n> web@1.9.0 seed\n> node scripts/seed.js --admin-email admin@acme.dev --admin-pass Zagorje-Kajkavski3\n\nseeded 12 users, 48 products\nnpm verb exit 0\nnpm info ok',
                "Zagorje-Kajkavski3",
            ),
            (
                "$ ps auxww | grep -v grep | grep restic\nroot      3117  2.1  0.8 1284412 70512 ?  Sl   03:00   1:12 /usr/bin/restic backup /srv --repo s3:s3.eu-central-1.amazonaws.com/acme-backup --password-command echo Kalemegdan-Sava-1867 --tag nightly",
                "Kalemegdan-Sava-1867",
            ),
            (
                '$ ansible-inventory -i inventory/prod --host web01\n{\n    "ansible_host": "10.20.1.11",\n    "ansible_port": 22,\n    "ansible_user": "deploy",\n    "ansible_become_pass": "Durres-Amfiteatri2",\n    "nginx_worker_processes": 4,\n    "ntp_servers": ["0.pool.ntp.org", "1.pool.ntp.org"]\n}',
                "Durres-Amfiteatri2",
            ),
        ),
    ),
    "vendor-16b": (
        "B",
        (
            (
                "# .env\nRESEND_API_KEY=re_Lq8Zr2Vx_W9mT1pK7yB3nC6sJ0dF5gHa\nRESEND_FROM=noreply@acme.dev",
                "re_Lq8Zr2Vx_W9mT1pK7yB3nC6sJ0dF5gHa",
            ),
            (
                "$ clerk env pull\nCLERK_PUBLISHABLE_KEY=pk_test_Y2xlcmsuYWNtZS5kZXYk\nCLERK_SECRET_KEY=sk_test_Q7m2Xv9LpR4tK8wZ1nB6cJ3sD0fGhY5e",
                "sk_test_Q7m2Xv9LpR4tK8wZ1nB6cJ3sD0fGhY5e",
            ),
            (
                "inngest:\n  event_key: 4Rk9LmT2qX7vZ8pW1nB3cY6sJ0dF5gHa2e\n  signing_key: signkey-prod-9b1e2f3a6c7d4e8fa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5",
                "signkey-prod-9b1e2f3a6c7d4e8fa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5",
            ),
            (
                "LOOPS_API_KEY=9f4c2e7a1b8d3f6e0a5c9b2d7e4f1a8c\nLOOPS_LIST_ID=cm3x9y2z40000",
                "9f4c2e7a1b8d3f6e0a5c9b2d7e4f1a8c",
            ),
            (
                "$ trigger.dev whoami\nProfile: default\nAccount: ops@acme.dev\nAPI URL: https://api.trigger.dev\nToken: tr_pat_m2Xv9LpR4tK8wZ1nB6cJ3sD0fGhY5eQ7",
                "tr_pat_m2Xv9LpR4tK8wZ1nB6cJ3sD0fGhY5eQ7",
            ),
            (
                "knock:\n  api_key: sk_prod_x7Vq2Lm9Rt4Kp8Wz1Nb3Cy6Sj0Df5Gh\n  public_key: pk_prod_a1B2c3D4e5F6g7H8i9J0",
                "sk_prod_x7Vq2Lm9Rt4Kp8Wz1Nb3Cy6Sj0Df5Gh",
            ),
            (
                "$ liveblocks-cli config\nsecret: sk_dev_Wz8Lm2Tx7Vq9Rp4Kn1Bc3Yj6Sd0Fg5Ha-ExQ2",
                "sk_dev_Wz8Lm2Tx7Vq9Rp4Kn1Bc3Yj6Sd0Fg5Ha-ExQ2",
            ),
        ),
    ),
}

BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "cloud-cli-benign-16": (
        "A",
        (
            "$ aws configure list\n      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n   profile               billing-ro           manual    --profile\naccess_key     ****************{AK4} shared-credentials-file\nsecret_key     ****************{AK4} shared-credentials-file\n    region             eu-central-1      config-file    ~/.aws/config",
            '$ aws sts get-caller-identity\n{\n    "UserId": "AIDA{AK16}",\n    "Account": "{d9}123",\n    "Arn": "arn:aws:iam::{d9}123:user/ci-deployer"\n}',
            "$ gcloud auth list\n                  Credentialed Accounts\nACTIVE  ACCOUNT\n*       deployer@acme-prod-{d9}.iam.gserviceaccount.com\n        li@acme.dev\n\nTo set the active account, run:\n    $ gcloud config set account `ACCOUNT`",
        ),
    ),
    "cloud-ids-benign-16": (
        "A",
        (
            '$ az account show -o json\n{\n  "environmentName": "AzureCloud",\n  "id": "{u}",\n  "isDefault": true,\n  "name": "acme-prod",\n  "state": "Enabled",\n  "tenantId": "{u}",\n  "user": { "name": "li@acme.dev", "type": "user" }\n}',
            "$ flyctl secrets list -a orders-api\nNAME            DIGEST                  CREATED AT\nDATABASE_URL    {h16}        2m ago\nSENTRY_DSN      {h16}        14d ago",
            "$ doctl compute droplet list --format ID,Name,PublicIPv4,Status\nID           Name      Public IPv4       Status\n{d9}    web-01    203.0.113.21      active\n{d9}    web-02    203.0.113.22      active",
        ),
    ),
    "tf-benign-16": (
        "A",
        (
            '  + resource "aws_db_instance" "orders" {\n      + identifier = "orders-prod"\n      + password   = (sensitive value)\n      + username   = "orders"\n      + arn        = (known after apply)\n    }',
            '$ terraform output\ncluster_endpoint = "https://{H16}.gr7.eu-west-1.eks.amazonaws.com"\nredis_auth = <sensitive>\nvpc_id = "vpc-{h16}"',
            'data "aws_secretsmanager_secret_version" "db" {\n  secret_id = "prod/orders/db"\n}\n\nlocals {\n  db_password = jsondecode(data.aws_secretsmanager_secret_version.db.secret_string)["password"]\n}',
        ),
    ),
    "tf-lock-benign-16": (
        "A",
        (
            'provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.80.0"\n  constraints = "~> 5.0"\n  hashes = [\n    "h1:{b44}",\n    "zh:{h64}",\n    "zh:{h64}",\n  ]\n}',
            '$ terraform state show aws_iam_access_key.ci\n# aws_iam_access_key.ci:\nresource "aws_iam_access_key" "ci" {\n    create_date = "2026-11-02T10:14:22Z"\n    id          = "AKIA{AK16}"\n    secret      = (sensitive value)\n    status      = "Active"\n    user        = "ci"\n}',
            'Terraform used the selected providers to generate the following execution plan.\n  # random_password.grafana_admin will be created\n  + resource "random_password" "grafana_admin" {\n      + id      = (known after apply)\n      + length  = 20\n      + result  = (sensitive value)\n      + special = true\n    }',
        ),
    ),
    "k8s-benign-16": (
        "A",
        (
            "$ kubectl get pods -n shop\nNAME                          READY   STATUS    RESTARTS   AGE\norders-api-{h8}-{a6}     1/1     Running   0          2d\norders-worker-{h8}-{a6}  1/1     Running   1          2d\nredis-0                       1/1     Running   0          9d",
            "$ kubectl get secret -n shop\nNAME                  TYPE                             DATA   AGE\norders-db             Opaque                           2      14d\nregistry-pull         kubernetes.io/dockerconfigjson   1      30d\nsh.helm.release.v1.orders.v7   helm.sh/release.v1   1   2d",
            "$ kubectl get configmap app-settings -o yaml\napiVersion: v1\ndata:\n  banner.txt: V2VsY29tZSB0byB0aGUgQUNNRSBzaG9wIQ==\n  LOG_LEVEL: info\nkind: ConfigMap\nmetadata:\n  name: app-settings\n  uid: {u}",
        ),
    ),
    "helm-compose-benign-16": (
        "A",
        (
            "$ helm get values keycloak -n auth\nUSER-SUPPLIED VALUES:\nauth:\n  adminUser: admin\n  existingSecret: keycloak-admin\n  passwordSecretKey: admin-password\nimage:\n  digest: sha256:{h64}",
            "$ docker compose config\nservices:\n  db:\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n    image: postgres:16@sha256:{h64}\n    secrets:\n      - source: db_password\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt",
            '$ docker compose ps\nNAME            IMAGE                      COMMAND                  SERVICE   CREATED       STATUS\nshop-db-1       mariadb:11.4               "docker-entrypoint.s…"   db        2 hours ago   Up 2 hours\nshop-web-1      ghcr.io/acme/shop:{h7}    "/app/server"            web       2 hours ago   Up 2 hours',
        ),
    ),
    "vault-benign-16": (
        "A",
        (
            "$ vault kv metadata get secret/shop/payments\n========== Metadata Path ==========\nsecret/metadata/shop/payments\n\n========== Metadata ==========\nKey                     Value\n---                     -----\ncas_required            false\ncreated_time            2026-06-01T09:14:22.31Z\ncurrent_version         7\nmax_versions            0",
            "$ vault token lookup\nKey                 Value\n---                 -----\naccessor            {a24}\ndisplay_name        oidc-li\nexpire_time         2026-12-05T20:14:22Z\npolicies            [default shop-read]\nttl                 7h59m",
            "db_password: vault:secret/data/shop/db#password\nsmtp_password: ssm:/prod/shop/smtp_password\napi_key: !Ref ApiKeySecretArn",
        ),
    ),
    "pkg-benign-16": (
        "A",
        (
            "# ~/.npmrc\n@acme:registry=https://npm.pkg.acme.dev/\n//npm.pkg.acme.dev/:_authToken=${NPM_TOKEN}\nengine-strict=true",
            '"node_modules/left-pad": {\n  "version": "1.3.0",\n  "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",\n  "integrity": "sha512-{sri384}"\n}',
            '[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{h64}"',
        ),
    ),
    "maven-benign-16": (
        "A",
        (
            "<server>\n  <id>acme-releases</id>\n  <username>${env.MAVEN_USER}</username>\n  <password>${env.MAVEN_PASSWORD}</password>\n</server>",
            "# gradle.properties\norg.gradle.jvmargs=-Xmx4g -Dfile.encoding=UTF-8\norg.gradle.parallel=true\nsigning.keyId={H16}\n# signing.password is passed with -Psigning.password from CI",
            "$ pip download requests==2.32.3 --no-deps -d /tmp/wheels\nCollecting requests==2.32.3\n  Downloading requests-2.32.3-py3-none-any.whl (64 kB)\nSaved /tmp/wheels/requests-2.32.3-py3-none-any.whl\n#sha256={h64}",
        ),
    ),
    "keys-public-benign-16": (
        "A",
        (
            '{\n  "keys": [\n    {\n      "kty": "OKP",\n      "crv": "Ed25519",\n      "kid": "signer-2026-12",\n      "use": "sig",\n      "x": "{b43}"\n    }\n  ]\n}',
            "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA{b43}\n-----END PUBLIC KEY-----",
            "$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:{b43} li@laptop (ED25519)",
        ),
    ),
    "lang-benign-16a": (
        "A",
        (
            "パスワードは12文字以上で、英大文字・数字・記号をそれぞれ1つ以上含めてください。",  # Japanese
            "Hasło musi mieć co najmniej 12 znaków i zawierać cyfrę oraz znak specjalny.",  # Polish
            "Het wachtwoord staat in de kluis onder 'staging/db'; vraag Sanne om toegang.",  # Dutch
        ),
    ),
    "lang-benign-16a2": (
        "A",
        (
            "密码错误，请重试。连续输错5次后账户将被锁定30分钟。",  # Chinese (simplified)
            "A senha deve ter pelo menos 10 caracteres. Esqueceu a senha? Clique em 'Redefinir senha'.",  # Portuguese (BR)
            "Lykilorðið verður að vera að minnsta kosti 12 stafir; notaðu lykilorðastjórann.",  # Icelandic
        ),
    ),
    "short-values-benign-16": (
        "A",
        (
            "$ redis-cli -h cache01 INFO server | head -4\n# Server\nredis_version:7.2.5\nredis_git_sha1:00000000\nrun_id:{h}",
            "[client]\nuser=backup\nhost=db-replica.lan\n# password read from ~/.mylogin.cnf (mysql_config_editor)",
            "$ mc alias list nas\nnas\n  URL       : http://10.0.0.5:9000\n  AccessKey : minio\n  SecretKey : ********\n  API       : s3v4\n  Path      : auto",
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "api-clients-benign-16": (
        "B",
        (
            '{\n  "name": "orders-staging",\n  "values": [\n    { "key": "baseUrl", "value": "https://staging.orders.acme.dev", "enabled": true },\n    { "key": "apiSecret", "value": "{{API_SECRET}}", "type": "secret", "enabled": true },\n    { "key": "requestId", "value": "{u}", "enabled": true }\n  ]\n}',
            '_type: request\nname: Create order\nmethod: POST\nurl: "{{ _.base_url }}/orders"\nheaders:\n  - name: Authorization\n    value: "Bearer {{ _.token }}"\n  - name: Idempotency-Key\n    value: {u}',
            "curl 'https://shop.acme.dev/api/products?page=2' \\\n  -H 'accept: application/json' \\\n  -H 'if-none-match: W/\"{h32}\"' \\\n  -H 'x-request-id: {u}' \\\n  --compressed",
        ),
    ),
    "har-benign-16": (
        "B",
        (
            '        "response": {\n          "status": 200,\n          "headers": [\n            { "name": "etag", "value": "\\"{h32}\\"" },\n            { "name": "x-amz-request-id", "value": "{H16}" },\n            { "name": "x-amz-id-2", "value": "{b64s}" }\n          ]\n        },',
            '          "headers": [\n            { "name": "authorization", "value": "[REDACTED]" },\n            { "name": "cookie", "value": "[REDACTED]" },\n            { "name": "traceparent", "value": "00-{h32}-{h16}-01" }\n          ],',
            '<script nonce="{b64s}" src="/static/app.{h8}.js" integrity="sha384-{sri384}" crossorigin="anonymous"></script>',
        ),
    ),
    "pw-manager-benign-16": (
        "B",
        (
            '$ bw list items --search staging | jq \'.[] | {id, name}\'\n{\n  "id": "{u}",\n  "name": "staging mysql"\n}\n{\n  "id": "{u}",\n  "name": "staging redis"\n}',
            "$ op item list --vault Infra\nID                            TITLE               VAULT    EDITED\n{a24}ab    Orders DB           Infra    3 days ago\n{a24}cd    ldap-bind           Infra    2 weeks ago",
            "DB_PASSWORD=op://Infra/Orders DB/password\nLDAP_BIND_PW=op://Infra/ldap-bind/password\n$ op run --env-file=.env.tpl -- ./manage.py migrate",
        ),
    ),
    "db-gui-benign-16": (
        "B",
        (
            '"postgres-jdbc-{h12}-{h16}": {\n  "provider": "postgresql",\n  "name": "orders (staging)",\n  "save-password": false,\n  "configuration": {\n    "host": "pg-staging.acme.dev",\n    "port": "5432",\n    "auth-model": "native"\n  }\n}',
            "# ~/.jupyter/jupyter_server_config.py\nc.ServerApp.ip = '127.0.0.1'\nc.PasswordIdentityProvider.hashed_password = 'argon2:$argon2id$v=19$m=10240,t=10,p=8${b64s}${b43}'\n# hashed with jupyter_server.auth.passwd()",
            "[I 2026-12-05 10:41:17.823 ServerApp] Kernel started: {u}\n[I 2026-12-05 10:41:18.004 ServerApp] Connecting to kernel {u}.\n[I 2026-12-05 10:41:21.377 ServerApp] Saving file at /analysis/orders.ipynb",
        ),
    ),
    "git-benign-16": (
        "B",
        (
            "$ git remote -v\norigin\tgit@github.com:acme/orders.git (fetch)\norigin\tgit@github.com:acme/orders.git (push)\n$ git log -1 --format=%H\n{h}",
            "$ git config --global --list | grep credential\ncredential.helper=osxkeychain\ncredential.https://git.acme.dev.username=marko\ncredential.useHttpPath=true",
            "commit {h}\nAuthor: Jonas Petraitis <jonas@acme.lt>\nDate:   Thu Dec 3 17:02:41 2026 +0200\n\n    auth: reject passwords shorter than 12 characters\n\n    Change-Id: I{h}",
        ),
    ),
    "chat-benign-16": (
        "B",
        (
            "[10:42] Ana Kovač: lozinku sam stavila u 1Password, vault Infra, stavka 'staging deploy'\n[10:43] Marko: super, hvala",
            "> **mario.rossi** commented on `auth/password.go` line 31:\n> nit: use `subtle.ConstantTimeCompare` when comparing password hashes",
            "    # TODO(petra): move the partner SFTP password to Vault (ticket OPS-4127)\n    password = os.environ['PARTNER_SFTP_PW']",
        ),
    ),
    "code-benign-16": (
        "B",
        (
            "export interface LoginForm {\n  email: string;\n  password: string;\n  rememberMe: boolean;\n}\n\nexport function validatePassword(password: string): string[] {\n  return password.length < 12 ? ['password.tooShort'] : [];\n}",
            'def test_login_rejects_wrong_password(client, user_factory):\n    user = user_factory(password=make_password("x" * 12))\n    resp = client.post("/login", data={"email": user.email, "password": "wrong"})\n    assert resp.status_code == 401',
            '<input type="password" name="password" autocomplete="current-password" minlength="12" required>\n<div class="g-recaptcha" data-sitekey="6Lc{alnum24}AAAA{a14}"></div>',
        ),
    ),
    "logs-benign-16": (
        "B",
        (
            "2026-12-05T07:12:44.118Z WARN auth.service - login failed for user=admin reason=INVALID_CREDENTIALS ip=10.0.3.17 trace_id={h32} span_id={h16}",
            "Dec  5 07:14:02 gw01 sshd[{d9}]: Failed password for invalid user oracle from 198.51.100.23 port 51944 ssh2",
            'psycopg.OperationalError: connection failed: FATAL:  password authentication failed for user "etl"\nDSN: host=10.0.4.20 port=5432 dbname=warehouse user=etl password=xxxxx sslmode=require',
        ),
    ),
    "public-ids-benign-16": (
        "B",
        (
            "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_{a24}{a24}\nNEXT_PUBLIC_GA_MEASUREMENT_ID=G-{AK4}{AK4}\nNEXT_PUBLIC_SENTRY_RELEASE={h}",
            "GOOGLE_OAUTH_CLIENT_ID={d9}{d9}-{a14}{a14}.apps.googleusercontent.com\nHCAPTCHA_SITEKEY={u}\nMAPBOX_PUBLIC_TOKEN=pk.eyJ1IjoiYWNtZSIsImEiOiJjbHh4eHh4eHgifQ.{b43}",
            "// example from the AWS docs, not a real key\nconst creds = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };",
        ),
    ),
    "lang-benign-16b": (
        "B",
        (
            "يجب أن تحتوي كلمة المرور على 12 حرفًا على الأقل، ورقم واحد، ورمز خاص.",  # Arabic
            "Parolei jābūt vismaz 12 rakstzīmēm; to glabājam 1Password, ne repozitorijā.",  # Latvian
            "Лозинка мора имати најмање 12 знакова. Заборавили сте лозинку?",  # Serbian (Cyrillic)
        ),
    ),
    "lang-benign-16b2": (
        "B",
        (
            'msgid "Password"\nmsgstr "Slaptažodis"\n\nmsgid "Forgot your password?"\nmsgstr "Pamiršote slaptažodį?"',  # Lithuanian
            '{\n  "login.password": "Kata laluan",\n  "login.password.hint": "Sekurang-kurangnya 12 aksara",\n  "login.submit": "Log masuk"\n}',  # Malay
            "password.required=Kinakailangan ang password\npassword.mismatch=Hindi tugma ang mga password\nIphasiwedi.required=Iphasiwedi iyadingeka",  # Filipino, Zulu
        ),
    ),
    "b64-hashes-benign-16": (
        "B",
        (
            "$ echo 'aGVsbG8gZnJvbSB0aGUgb3JkZXJzIHRlYW0K' | base64 -d\nhello from the orders team",
            "users.password_hash (bcrypt, cost 12): $2b$12${c53}\nusers.password_changed_at: 2026-11-30 08:12:44+00",
            "$ sha256sum dist/orders-2.7.0.tar.gz\n{h64}  dist/orders-2.7.0.tar.gz",
        ),
    ),
    "ssh-store-benign-16": (
        "B",
        (
            '{\n  "name": "bastion-prod",\n  "host": "203.0.113.40",\n  "username": "ubuntu",\n  "publicKey": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b43} ci@acme",\n  "privateKeyPath": "~/.ssh/bastion_prod"\n}',
            "$ gopass ls infra\ninfra/\n├── ldap/\n│   └── bind\n├── mqtt/\n│   └── broker\n└── smtp/\n    └── noreply",
            "$ ssh-keyscan -t ed25519 gitlab.acme.mk\n# gitlab.acme.mk:22 SSH-2.0-OpenSSH_9.6\ngitlab.acme.mk ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b43}",
        ),
    ),
}
