"""Round 17 of the generated firewall corpus: secrets (most with their own literal values) and near-misses, written blind.

Written on 2026-12-05 as round 17 by a session that had not read the firewall's rules, its
documentation, its tests or their history, and that never ran the firewall on these samples: the
figures they give measure how the rules generalise to material written by someone who does not
know them. Only `secret_generators.py` (its `_round`, `_literal_round`, `_FILLERS` and table
formats) and the docstrings and family names of `secret_round15.py` and `secret_round16.py` were
read, for the data format and to pick families, syntaxes, languages and value shapes the earlier
rounds did not use.

Most secrets of this round are written by hand (`LITERAL_SECRETS`, 167 texts against 18 templates
that `_round` draws 54 samples from; 119 near-miss templates give 357 near-misses) as they appear
in coding-agent turns in places earlier rounds did not use: IDE and editor settings (VS Code `settings.json`,
`launch.json` env blocks, JetBrains `workspace.xml` and data sources), debugger variable dumps
(pdb, gdb, lldb, Delve, the VS Code variables pane), `strings` output of core dumps, SQL migration
files, ORM seed files (Rails, Django, Prisma, Laravel, Sequelize), fixtures in YAML/JSON/CSV, CI
variables printed by mistake (GitLab, CircleCI, Jenkins, Buildkite, Drone), Kubernetes ConfigMaps
misused for secrets, cloud-init user-data, Ansible inventory INI, Salt pillars, Puppet hiera, Chef
attributes, systemd `Environment=`, supervisor programs, nginx/Apache/HAProxy auth, Redis,
Memcached, RabbitMQ and Kafka client configs, MQTT and IoT device configs (ESPHome, Tasmota,
Arduino sketches), Home Assistant `secrets.yaml`, Jupyter outputs, pandas DataFrame prints, CSV
and spreadsheet exports, OCR of screenshots and voice-transcribed chat, and password sentences
in Portuguese (PT), Galician, Catalan, Basque, Welsh, Breton, Frisian, Afrikaans, Swahili,
Amharic, Hausa, Igbo, Somali, Nepali, Sinhala, Khmer, Lao, Burmese, Mongolian, Kazakh, Uzbek,
Azerbaijani, Georgian, Armenian, Hebrew, Urdu, Punjabi, Marathi, Gujarati, Telugu, Kannada and
Malayalam. Values are short words, words with one capital, repeated letters, dates, phone
numbers, car plates, names and years, song lyrics, values with spaces, quotes, backslashes, `$`,
`%`, `#`, `;`, `&`, `<` or `>` in the escaped form their syntax shows, values in non-Latin
scripts, emoji, and invented vendor tokens (prefixed and unprefixed). Some sit where nothing
nearby says password, token or key, some in the middle of long benign output. None of them ever
worked anywhere.

Tables:
- `SECRETS`: variant -> (fold, templates), each template holds `{s}` exactly once, as
  `_round(tag, secret_table, benign_table, token_length)` takes it.
- `LITERAL_SECRETS`: variant -> (fold, ((text, secret), ...)); `secret` occurs verbatim in `text`
  (in the escaped form the syntax around it shows) and each text is one sample, used as is.
- `BENIGN`: variant -> (fold, templates) of near-misses that hold no secret and no `{s}`, only
  `_FILLERS` placeholders for random-looking benign values.

The fold is decided by the family (tool, syntax, value shape or language), never by chance: fold A
holds IDE and editor settings, debugger dumps, core-dump strings, SQL migrations, ORM seeds and
data fixtures, CI variables printed by GitLab/CircleCI/Jenkins/Buildkite/Drone, ConfigMaps and
cloud-init, Portuguese (PT)/Galician/Catalan/Basque/Welsh/Breton/Frisian/Afrikaans/Swahili/
Amharic/Hausa/Igbo/Somali/Nepali/Sinhala/Khmer, and the literal shapes escaped JSON/XML/SQL/YAML
values, dates and phone numbers, values with nothing secret-like nearby and one vendor group;
fold B holds configuration management (Ansible INI, Salt, Puppet, Chef), systemd and supervisor,
nginx/Apache/HAProxy, Redis/Memcached/RabbitMQ/Kafka, MQTT/IoT and Home Assistant, notebook
outputs, DataFrames and spreadsheet exports, OCR and voice transcripts, Lao/Burmese/Mongolian/
Kazakh/Uzbek/Azerbaijani/Georgian/Armenian/Hebrew/Urdu/Punjabi/Marathi/Gujarati/Telugu/Kannada/
Malayalam, and the literal shapes car plates, lyrics, emoji and non-Latin values, escaping of
INI/systemd/supervisor/shell, values in long output and one vendor group. Near-misses follow the
same split (hashes, UUIDs, ids, etags, commit and build ids, base64 of plain data, public keys and
fingerprints, vendor example credentials, placeholders, masked values, names without values,
secret-store references, password policies and validation messages, labelled hashes, code that
handles passwords, i18n strings, test names, hashed object names, integrity hashes, CSP nonces,
public site keys and client ids, analytics ids).

Failure: none at import; the tables are plain data (not wired into `generate()` here).
"""

# ruff: noqa: E501, RUF001 - a template is a turn's line (kept on one line), in the script it is written in

from __future__ import annotations

__all__ = ["BENIGN", "LITERAL_SECRETS", "SECRETS"]

SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ide-settings-17": (
        "A",
        (
            '// .vscode/settings.json\n{\n  "sqltools.connections": [\n    {\n      "name": "local-shop",\n      "driver": "PostgreSQL",\n      "server": "localhost",\n      "port": 5432,\n      "database": "shop",\n      "username": "shop",\n      "password": "{s}"\n    }\n  ]\n}',
            '// .vscode/launch.json\n{\n  "type": "debugpy",\n  "request": "launch",\n  "name": "worker",\n  "module": "billing.worker",\n  "env": {\n    "BILLING_ENV": "dev",\n    "SMTP_PASS": "{s}"\n  }\n}',
            '<!-- .idea/workspace.xml -->\n<configuration name="api" type="PythonConfigurationType">\n  <envs>\n    <env name="PYTHONUNBUFFERED" value="1" />\n    <env name="LEDGER_DB_PASSWORD" value="{s}" />\n  </envs>\n</configuration>',
        ),
    ),
    "ci-printed-17": (
        "A",
        (
            'Running with gitlab-runner 17.5.1 (8d3a8a1b)\n$ echo "pushing with REGISTRY_PASSWORD=$REGISTRY_PASSWORD"\npushing with REGISTRY_PASSWORD={s}\n$ docker login -u ci-bot --password-stdin registry.internal',
            "#!/bin/bash -eo pipefail\nenv | sort | grep -i npm\nNPM_CONFIG_REGISTRY=https://npm.internal/\nNPM_PUBLISH_TOKEN={s}\nCircleCI received exit code 0",
            "[Pipeline] sh\n+ curl -fsS -u deploy:{s} -T dist/app.war https://nexus.internal/repository/releases/app-1.4.2.war\n[Pipeline] }",
        ),
    ),
    "lang-17a": (
        "A",
        (
            "Olá, a palavra-passe da base de dados de testes é {s} — não a partilhes no Slack, por favor.",
            "Bon dia! La contrasenya del servidor de proves és {s}, canvia-la quan acabis.",
            "Helo, y cyfrinair i'r gweinydd datblygu yw {s}. Paid â'i rannu.",
        ),
    ),
    "ops-units-17": (
        "B",
        (
            "# /etc/systemd/system/report-worker.service\n[Service]\nUser=reports\nEnvironment=REPORTS_ENV=prod\nEnvironment=REPORTS_DB_PASS={s}\nExecStart=/opt/reports/bin/worker",
            '[program:mailer]\ncommand=/srv/mailer/venv/bin/python -m mailer\nautostart=true\nenvironment=MAILER_SMTP_USER="noreply",MAILER_SMTP_PASS="{s}"',
            "[dbservers]\npg01 ansible_host=10.20.0.11 ansible_user=deploy ansible_password={s}\npg02 ansible_host=10.20.0.12 ansible_user=deploy",
        ),
    ),
    "brokers-17": (
        "B",
        (
            'security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="etl" password="{s}";',
            "# /etc/rabbitmq/rabbitmq.conf\nlisteners.tcp.default = 5672\ndefault_user = ops\ndefault_pass = {s}\nloopback_users.guest = false",
            "$ mosquitto_sub -h mqtt.home.lan -p 1883 -u sensor-hub -P {s} -t 'garden/#' -v",
        ),
    ),
    "lang-17b": (
        "B",
        (
            "היי, הסיסמה לשרת הבדיקות היא {s} — תחליף אותה אחרי ההדגמה.",
            "بھائی، سٹیجنگ ڈیٹا بیس کا پاس ورڈ {s} ہے، کسی کو مت بتانا۔",
            "გამარჯობა, სატესტო სერვერის პაროლია {s} — არავის გაუზიარო.",
        ),
    ),
}

LITERAL_SECRETS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "ide-editors-17": (
        "A",
        (
            (
                '{\n  "editor.fontSize": 14,\n  "mssql.connections": [\n    {\n      "server": "sql-dev.corp.local",\n      "database": "Payroll",\n      "authenticationType": "SqlLogin",\n      "user": "sa",\n      "password": "Biscuit2019",\n      "savePassword": true\n    }\n  ]\n}',
                "Biscuit2019",
            ),
            (
                '"rest-client.environmentVariables": {\n    "local": { "baseUrl": "http://localhost:8080", "apiKey": "wx_dev_Vj1nbPh36KVoWvzAFTCEbDNr" }\n}',
                "wx_dev_Vj1nbPh36KVoWvzAFTCEbDNr",
            ),
            (
                '<data-source source="LOCAL" name="orders@prod-ro" uuid="6b1f0d2e-8f0a-4c41-9d2a-0c2f5b6c7e11">\n  <driver-ref>postgresql</driver-ref>\n  <jdbc-url>jdbc:postgresql://10.1.4.20:5432/orders?user=readonly&amp;password=ottersleep</jdbc-url>\n</data-source>',
                "ottersleep",
            ),
            (
                '// .vscode/launch.json\n"configurations": [{\n  "name": "Attach api",\n  "type": "node",\n  "request": "launch",\n  "program": "${workspaceFolder}/src/server.js",\n  "args": ["--db-pass", "Lemonade"]\n}]',
                "Lemonade",
            ),
            (
                '<component name="RunManager">\n  <configuration name="Spring Boot: Api" type="SpringBootApplicationConfigurationType">\n    <option name="VM_PARAMETERS" value="-Dspring.datasource.password=Zzzzebra11 -Xmx1g" />\n  </configuration>\n</component>',
                "Zzzzebra11",
            ),
            (
                '{\n  "remote.SSH.remotePlatform": {"build-box": "linux"},\n  "sftp.config": {"host": "build-box", "username": "rita", "password": "17-03-1988", "remotePath": "/srv/app"}\n}',
                "17-03-1988",
            ),
            (
                '# ~/.config/zed/settings.json\n{\n  "language_models": {\n    "openai_compatible": { "api_url": "https://llm.lab.local/v1", "api_key": "lab-2DKuEaUw3aRZwKi6ai7IEUkaBnsNtfgcN4uryi5K" }\n  }\n}',
                "lab-2DKuEaUw3aRZwKi6ai7IEUkaBnsNtfgcN4uryi5K",
            ),
            (
                '<!-- .idea/dataSources.local.xml -->\n<data-source name="mysql@staging">\n  <secret-storage>master_key</secret-storage>\n  <user-name>shop_rw</user-name>\n  <schema-mapping />\n  <auth-provider>plain</auth-provider>\n  <property name="password" value="Fish&amp;Chips&lt;3" />\n</data-source>',
                "Fish&amp;Chips&lt;3",
            ),
            (
                '{\n  "intelephense.licenceKey": "00ZQ7KP4M2ANV9X",\n  "php.validate.executablePath": "/usr/bin/php"\n}',
                "00ZQ7KP4M2ANV9X",
            ),
            (
                '"terminal.integrated.env.linux": {\n    "PGHOST": "localhost",\n    "PGUSER": "marta",\n    "PGPASSWORD": "tr\\"ee\\\\house"\n}',
                'tr\\"ee\\\\house',
            ),
        ),
    ),
    "debugger-dumps-17": (
        "A",
        (
            (
                "(Pdb) pp locals()\n{'conn_kwargs': {'dbname': 'ledger',\n                 'host': 'db.internal',\n                 'password': 'pumpkinspice',\n                 'user': 'ledger_app'},\n 'retries': 3}",
                "pumpkinspice",
            ),
            (
                '(gdb) p *cfg\n$1 = {host = 0x5555555592a0 "mq.internal", port = 5671, user = 0x5555555592c0 "telemetry", secret = 0x5555555592e0 "Q7pr-Walrus-22", tls = true}',
                "Q7pr-Walrus-22",
            ),
            (
                '(lldb) frame variable\n(const char *) endpoint = 0x0000600000c04000 "https://api.fieldkit.io"\n(const char *) bearer = 0x0000600000c04040 "fk_9tY3mQ0pLr7ZcWv2Hs8NbXe1"\n(int) timeout = 30',
                "fk_9tY3mQ0pLr7ZcWv2Hs8NbXe1",
            ),
            (
                '(dlv) print opts\ngithub.com/acme/sync/internal/store.Options {\n\tDSN: "postgres://sync:Gr4nite%2Fpeak@db:5432/sync?sslmode=disable",\n\tMaxConns: 10,}',
                "Gr4nite%2Fpeak",
            ),
            (
                "VARIABLES\n  Locals\n    self: <SmtpRelay object at 0x7f3a1c2b9d30>\n    host: 'smtp.mailbox.lan'\n    port: 587\n    login: 'alerts'\n    pw: 'Sunflower'\n  Globals",
                "Sunflower",
            ),
            (
                '> p settings\n#<struct Settings redis_url="redis://:nachos4ever@cache.internal:6379/2", pool=5>',
                "nachos4ever",
            ),
            (
                "ipdb> request.headers\n{'Host': 'localhost:8000', 'X-Internal-Auth': 'CMXYV95m5HgsjMuc9o1tmkjOhLOZ', 'Accept': '*/*'}",
                "CMXYV95m5HgsjMuc9o1tmkjOhLOZ",
            ),
            (
                'Breakpoint 1, connect (host=0x4020a0 "10.0.0.5", user=0x4020b0 "root", pass=0x4020b8 "aaaaaa1") at client.c:41',
                "aaaaaa1",
            ),
        ),
    ),
    "core-strings-17": (
        "A",
        (
            (
                "$ strings -n 8 core.18342 | grep -i -A1 amqp\namqps://orders:Marigold-Hinge-5@mq.internal:5671/prod\nAMQP 0-9-1 PLAIN\nx-consumer-timeout",
                "Marigold-Hinge-5",
            ),
            (
                "$ strings core.worker.2201 | sed -n '1200,1206p'\nGLIBC_2.34\n/usr/lib/x86_64-linux-gnu/libssl.so.3\nAuthorization: Bearer pl_aGqnmKRkxvZMFuIh7JETiCORXeihwjo2\nUser-Agent: worker/2.3.1\nContent-Type: application/json",
                "pl_aGqnmKRkxvZMFuIh7JETiCORXeihwjo2",
            ),
            (
                "$ gcore 4411 && strings core.4411 | grep -E '^(PG|MYSQL)'\nPGHOST=db-2.internal\nPGUSER=etl\nPGPASSWORD=riverbend\nPGDATABASE=warehouse",
                "riverbend",
            ),
            (
                "$ xxd crash.dmp | grep -A1 6c6f67\n00a3f1c0: 6c6f 6769 6e3d 6164 6d69 6e26 7061 7373  login=admin&pass\n00a3f1d0: 3d62 616e 616e 6131 3233 2600 0000 0000  =banana123&.....",
                "banana123",
            ),
            (
                "$ strings -el minidump.dmp | grep -i conn\nServer=tcp:sql01,1433;Database=Crm;User Id=crm_app;Password=Wednesday#42;\nConnection Timeout=30",
                "Wednesday#42",
            ),
        ),
    ),
    "migrations-seeds-17": (
        "A",
        (
            (
                "-- migrations/0042_create_reporting_role.sql\nCREATE ROLE reporting LOGIN PASSWORD 'hazelnut77';\nGRANT SELECT ON ALL TABLES IN SCHEMA analytics TO reporting;",
                "hazelnut77",
            ),
            (
                "-- V7__service_accounts.sql (Flyway)\nINSERT INTO service_accounts (name, api_secret) VALUES ('exporter', 'ex_s3cr_XnzbaRcxKdUOyqwOQMyO4zf9');",
                "ex_s3cr_XnzbaRcxKdUOyqwOQMyO4zf9",
            ),
            (
                "-- 20261130_mysql_users.sql\nCREATE USER 'bi'@'%' IDENTIFIED BY 'O''Brien1968';\nGRANT SELECT ON sales.* TO 'bi'@'%';",
                "O''Brien1968",
            ),
            (
                "# db/seeds.rb\nUser.find_or_create_by!(email: 'admin@acme.test') do |u|\n  u.name = 'Admin'\n  u.password = 'Chocolate!'\n  u.role = :admin\nend",
                "Chocolate!",
            ),
            (
                '# accounts/management/commands/seed.py\nUser.objects.create_superuser("root", "root@example.org", "mooncake88")',
                "mooncake88",
            ),
            (
                "// prisma/seed.ts\nawait prisma.integration.create({\n  data: { provider: 'shipnow', clientId: 'acme-prod', clientSecret: 'snw_cs_wIRGtx9lOBv5Bp5odxUmc8XncoLJ' },\n});",
                "snw_cs_wIRGtx9lOBv5Bp5odxUmc8XncoLJ",
            ),
            (
                "// database/seeders/AdminSeeder.php\nDB::table('users')->insert([\n    'email' => 'ops@acme.test',\n    'password' => Hash::make('Kangaroo2'),\n]);",
                "Kangaroo2",
            ),
            (
                "// seeders/20261201-demo-user.js\nawait queryInterface.bulkInsert('Users', [{ username: 'demo', password: await bcrypt.hash('demo demo demo', 10) }]);",
                "demo demo demo",
            ),
            ("ALTER USER app_rw WITH PASSWORD 'Sn0w$Fall';  -- rotated 2026-11-28", "Sn0w$Fall"),
            (
                "-- liquibase changeset ivo:17\n<sql>CREATE LOGIN etl_loader WITH PASSWORD = N'Tijgerhaai&amp;9', CHECK_POLICY = OFF;</sql>",
                "Tijgerhaai&amp;9",
            ),
        ),
    ),
    "fixtures-data-17": (
        "A",
        (
            (
                "# spec/fixtures/integrations.yml\nstripe_like:\n  account: acct_demo\n  webhook_signing: whsk_e3OheugYfcIjX5pwebaN1EHt09vC\n  created_at: 2026-11-02",
                "whsk_e3OheugYfcIjX5pwebaN1EHt09vC",
            ),
            (
                "# tests/fixtures/users.yaml\n- model: auth.user\n  fields:\n    username: kiosk\n    raw_password: 'it''s-m3-mario'",
                "it''s-m3-mario",
            ),
            (
                'id,username,email,initial_password\n1,ana,ana@acme.test,Tangerine\n2,bo,bo@acme.test,"say ""cheese"" 2024"\n3,cy,cy@acme.test,Tangerine',
                'say ""cheese"" 2024',
            ),
            (
                '[\n  {"id": 1, "host": "ftp.partner.example", "user": "acme_drop", "pass": "0718-555-0199"},\n  {"id": 2, "host": "ftp2.partner.example", "user": "acme_drop", "pass": null}\n]',
                "0718-555-0199",
            ),
            ('fixtures/smtp.json:  "credentials": {"user": "bounce", "secret": "25/12/1999"}', "25/12/1999"),
            (
                "# test/fixtures/devices.csv\nserial;model;wifi_ssid;wifi_psk\nAX-1001;thermo-2;AcmeGuest;pineapplepizza\nAX-1002;thermo-2;AcmeGuest;pineapplepizza",
                "pineapplepizza",
            ),
        ),
    ),
    "ci-printed-lit-17": (
        "A",
        (
            (
                '$ echo "CI_REGISTRY_PASSWORD=$CI_REGISTRY_PASSWORD"  # debug why login fails\nCI_REGISTRY_PASSWORD=glcbt-64_Aq93nKd7PzW1xLm2Rv5T\n$ docker login -u gitlab-ci-token -p "$CI_REGISTRY_PASSWORD" $CI_REGISTRY',
                "glcbt-64_Aq93nKd7PzW1xLm2Rv5T",
            ),
            (
                "#!/bin/bash -eo pipefail\nprintenv | grep -E 'AWS|SENTRY'\nSENTRY_DSN=https://2f9d1c0e7b8a4e6f9a0b1c2d3e4f5a6b@o4411.ingest.sentry.io/77\nAWS_REGION=eu-west-1\nSENTRY_AUTH_TOKEN=sntrys_jaI4Vn4tHF5BbsWb7WxgWvmc41rHw5",
                "sntrys_jaI4Vn4tHF5BbsWb7WxgWvmc41rHw5",
            ),
            (
                "[Pipeline] withCredentials\nMasking supported pattern matches of $NEXUS_PW\n[Pipeline] sh\n+ set -x\n+ mvn -B deploy -Dnexus.user=ci -Dnexus.password=Harbour77Lights",
                "Harbour77Lights",
            ),
            (
                "~~~ :buildkite: Setting up plugins\n$ env\nBUILDKITE_BRANCH=main\nBUILDKITE_AGENT_TOKEN=bkua_ggDf7bhnZ19I1VxlmrnXtD4qHv\nBUILDKITE_PIPELINE_SLUG=web",
                "bkua_ggDf7bhnZ19I1VxlmrnXtD4qHv",
            ),
            (
                "[drone:exec] starting build step: publish\n+ echo $PLUGIN_PASSWORD | base64\nc2hpcHlhcmQtOTk=\n+ docker push reg.lan/web:1.9.0",
                "c2hpcHlhcmQtOTk=",
            ),
            (
                'GitLab CI job #88213 variables (Settings > CI/CD > Variables, exported via API):\n[{"key":"DEPLOY_SSH_PASS","value":"velvetcrow","protected":false,"masked":false}]',
                "velvetcrow",
            ),
            (
                'Run #1422 (woodpecker)\n+ echo "using token ${ARTIFACTORY_TOKEN}"\nusing token cmVmdGtuOjAxOjE3OTk6efc80e3e5ca286780a28',
                "cmVmdGtuOjAxOjE3OTk6efc80e3e5ca286780a28",
            ),
            (
                "[2026-12-04T10:11:03Z] Jenkins console: Started by user ana\n[EnvInject] - Injecting as environment variables the properties content\nDB_USER=jenkins\nDB_PASS=mississippi\n[EnvInject] - Variables injected successfully.",
                "mississippi",
            ),
        ),
    ),
    "configmap-cloudinit-17": (
        "A",
        (
            (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: checkout-config\ndata:\n  LOG_LEVEL: info\n  PAYMENTS_URL: https://pay.internal\n  PAYMENTS_API_KEY: pk_srv_439f1136cf119164fb5d9c0fb5934309",
                "pk_srv_439f1136cf119164fb5d9c0fb5934309",
            ),
            (
                "kind: ConfigMap\ndata:\n  application.properties: |\n    spring.datasource.url=jdbc:mysql://mysql:3306/orders\n    spring.datasource.username=orders\n    spring.datasource.password=Peppermint",
                "Peppermint",
            ),
            (
                "#cloud-config\nusers:\n  - name: ops\n    groups: sudo\n    lock_passwd: false\n    plain_text_passwd: 'Wombat99'\nssh_pwauth: true",
                "Wombat99",
            ),
            (
                "#cloud-config\nchpasswd:\n  expire: false\n  users:\n    - {name: ubuntu, password: ubuntu2026, type: text}",
                "ubuntu2026",
            ),
            (
                "#cloud-config\nwrite_files:\n  - path: /etc/agent/agent.env\n    content: |\n      AGENT_ENROLL=enr_24b887aea711ba01100e5a9a0c1a7186\n      AGENT_SITE=eu-1",
                "enr_24b887aea711ba01100e5a9a0c1a7186",
            ),
            (
                '$ kubectl get cm legacy-env -o jsonpath=\'{.data}\'\n{"FTP_HOST":"files.partner.example","FTP_PASS":"bluebird42","FTP_USER":"acme"}',
                "bluebird42",
            ),
        ),
    ),
    "lang-lit-17a": (
        "A",
        (
            ("Bom dia! A palavra-passe do router do escritório é Bacalhau1755, mudei-a ontem.", "Bacalhau1755"),
            ("Ola! O contrasinal da base de datos de proba é Percebe-Vigo-22, non o compartas.", "Percebe-Vigo-22"),
            ("Ei, la contrasenya de l'usuari admin és Castellers9 — no la posis al repositori.", "Castellers9"),
            ("Kaixo! Zerbitzariaren pasahitza txakurra2024 da, ez partekatu inorekin.", "txakurra2024"),
            ("Bore da! Cyfrinair y llwybrydd yw Cennin Pedr 7, gyda bylchau.", "Cennin Pedr 7"),
            ("Demat! Ar ger-tremen evit ar servijer eo Kouignamann56.", "Kouignamann56"),
            ("Goeie! It wachtwurd fan de testserver is Fryslan-boppe-1 — net trochjaan asjebleaft.", "Fryslan-boppe-1"),
            ("Hallo, die wagwoord vir die databasis is Braaivleis4Ewig, moenie dit deel nie.", "Braaivleis4Ewig"),
            ("Habari! Nenosiri la seva ya majaribio ni simbamkubwa77, usimwambie mtu.", "simbamkubwa77"),
            ("ሰላም! የሙከራ ሰርቨሩ የይለፍ ቃል ቡና2016 ነው፣ ለማንም አታጋራ።", "ቡና2016"),
            ("Sannu! Kalmar sirri ta uwar garken ita ce Kano-Dawa-88, kada ka gaya wa kowa.", "Kano-Dawa-88"),
            ("Ndewo! Okwuntughe nke sava ule bụ Nkwobi2020, ekesala ya.", "Nkwobi2020"),
            ("Salaan! Furaha sirta ee server-ka tijaabada waa Hargeisa@1991, cidna ha u sheegin.", "Hargeisa@1991"),
            ("नमस्ते! परीक्षण सर्भरको पासवर्ड सगरमाथा8848 हो, कसैलाई नभन्नु।", "सगरमाथा8848"),
            ("ආයුබෝවන්! පරීක්ෂණ සේවාදායකයේ මුරපදය Kottu-Roti-5 වේ, කාටවත් කියන්න එපා.", "Kottu-Roti-5"),
            ("សួស្តី! ពាក្យសម្ងាត់របស់ម៉ាស៊ីនមេសាកល្បងគឺ Angkor1113 កុំប្រាប់នរណាម្នាក់។", "Angkor1113"),
        ),
    ),
    "escaped-dates-17a": (
        "A",
        (
            ('{"db": {"user": "lab", "password": "C:\\\\temp\\\\n0pe"}}', "C:\\\\temp\\\\n0pe"),
            ('<add key="SmtpPassword" value="&quot;quoted&quot;&amp;more" />', "&quot;quoted&quot;&amp;more"),
            ("INSERT INTO app_settings (k, v) VALUES ('smtp.pass', 'it''s raining 99');", "it''s raining 99"),
            ('export const cfg = { ftpPass: "back\\\\slash\\\\2", ftpUser: "drop" };', "back\\\\slash\\\\2"),
            ('  smtp_password: "tab\\there"  # yaml double-quoted', "tab\\there"),
            ("db.conn=user=ana;password=1999-07-04;host=10.0.0.7", "1999-07-04"),
            ("He said the office alarm code is 4412 — it is also the admin login for the NVR: admin / 4412", "4412"),
            ('[account "sip-desk-3"]\nusername = 3003\nsip_password = "+351 912 345 678"', "+351 912 345 678"),
        ),
    ),
    "structure-only-17a": (
        "A",
        (
            ("$ cat ~/.pgpass\ndb-ro.internal:5432:analytics:reader:Kite-Runner-3", "Kite-Runner-3"),
            ("mysql://billing:hopscotch@10.4.0.9:3306/billing", "hopscotch"),
            (
                "$ ./sync --src s3://drop/in --dst sftp://acme:Meadowlark5@files.partner.example:22/in --dry-run",
                "Meadowlark5",
            ),
            ("machine files.partner.example login acme password Ruby Tuesday", "Ruby Tuesday"),
            (
                "ldapsearch -x -H ldaps://dc1.corp.local -D 'CN=svc-ldap,OU=Svc,DC=corp,DC=local' -w hedgehog -b 'DC=corp,DC=local' '(sAMAccountName=ana)'",
                "hedgehog",
            ),
            ("sshpass -p 'Tuesday!' scp build.tgz deploy@10.9.1.4:/srv/drop/", "Tuesday!"),
        ),
    ),
    "vendor-17a": (
        "A",
        (
            ("FIELDLINE_API_KEY=flk_live_Xq8rT2mV9nB4cW7zK1pL5sD3", "flk_live_Xq8rT2mV9nB4cW7zK1pL5sD3"),
            (
                'client = Quillmail("qm-sk-XnzbaRcxKdUOyqwOQMyO4zf9LxTIezqU", region="eu")',
                "qm-sk-XnzbaRcxKdUOyqwOQMyO4zf9LxTIezqU",
            ),
            (
                "tessellate login --token tsl.v2.9f3e2b1a7c.aGVsbG8tdGVzc2VsbGF0ZS0xNw",
                "tsl.v2.9f3e2b1a7c.aGVsbG8tdGVzc2VsbGF0ZS0xNw",
            ),
            (
                "orbit.init({ project: 'web', ingest: 'https://in.orbitlog.dev', writeKey: 'owk_gswxB4Y8r7gYvz84ztgl' })",
                "owk_gswxB4Y8r7gYvz84ztgl",
            ),
            (
                "curl https://api.parcelhop.com/v3/labels -H 'X-PH-Auth: 5d1c8a0f-PH-e3b7-LIVE-41a9c2f0b6d8'",
                "5d1c8a0f-PH-e3b7-LIVE-41a9c2f0b6d8",
            ),
            (
                "$ heron deploy --app shop --auth 98CTDoPScQWUdLYihl0h_1-mU2Cm_ZLs3-cP7qVP",
                "98CTDoPScQWUdLYihl0h_1-mU2Cm_ZLs3-cP7qVP",
            ),
        ),
    ),
    "config-mgmt-17": (
        "B",
        (
            (
                "# inventory/prod.ini\n[web]\nweb1 ansible_host=10.0.1.11\nweb2 ansible_host=10.0.1.12\n\n[web:vars]\nansible_user=ubuntu\nansible_become_password='sun#rise;44'",
                "sun#rise;44",
            ),
            (
                "# inventory/hosts\n[windows]\nwin-build ansible_host=10.0.3.5 ansible_connection=winrm ansible_user=Administrator ansible_password=Kalimera2020",
                "Kalimera2020",
            ),
            (
                "# /srv/pillar/postgres.sls\npostgres:\n  users:\n    grafana:\n      password: 'lavender fields'\n      createdb: False",
                "lavender fields",
            ),
            (
                "# hieradata/nodes/db01.yaml\n---\nprofile::mysql::root_password: 'Toblerone%7'\nprofile::mysql::bind_address: '0.0.0.0'",
                "Toblerone%7",
            ),
            (
                "# attributes/default.rb\ndefault['app']['smtp']['user'] = 'noreply'\ndefault['app']['smtp']['password'] = 'Gingerbread'\ndefault['app']['smtp']['port'] = 587",
                "Gingerbread",
            ),
            (
                "$ salt 'cache*' pillar.get redis\ncache01:\n    ----------\n    bind:\n        0.0.0.0\n    requirepass:\n        kiwikiwikiwi",
                "kiwikiwikiwi",
            ),
            (
                "class { 'rabbitmq':\n  default_user => 'admin',\n  default_pass => 'Popcorn-Tuesday',\n}",
                "Popcorn-Tuesday",
            ),
            (
                '$ ansible-inventory -i inventory --host nas01\n{\n    "ansible_host": "192.168.1.20",\n    "ansible_ssh_pass": "hamster",\n    "ansible_user": "admin"\n}',
                "hamster",
            ),
        ),
    ),
    "units-supervisor-17": (
        "B",
        (
            (
                '[Service]\nEnvironment="PGPASSWORD=50%%off!"\nExecStart=/usr/bin/pg_dump -h db -U backup -Fc shop -f /backup/shop.dump',
                "50%%off!",
            ),
            (
                "$ systemctl show grafana-server -p Environment\nEnvironment=GF_SECURITY_ADMIN_USER=admin GF_SECURITY_ADMIN_PASSWORD=Sardine1",
                "Sardine1",
            ),
            (
                '[program:celery]\ncommand=celery -A shop worker -l info\nenvironment=BROKER_URL="amqp://shop:rate%%limit9@mq:5672//"',
                "rate%%limit9",
            ),
            (
                "$ sudo systemctl cat node-exporter.service | grep -i env\nEnvironment=BASIC_AUTH=prom:Icebergs-ahead",
                "Icebergs-ahead",
            ),
            ("# /etc/default/minio\nMINIO_ROOT_USER=minio\nMINIO_ROOT_PASSWORD=aaaaBBBB1111", "aaaaBBBB1111"),
        ),
    ),
    "web-auth-17": (
        "B",
        (
            (
                'location /admin/ {\n    proxy_pass http://backend;\n    proxy_set_header Authorization "Basic b3BzOlR1bGlwLVJhaW4tNw==";\n}',
                "b3BzOlR1bGlwLVJhaW4tNw==",
            ),
            (
                "userlist ops_users\n    user admin insecure-password Qu1etHarbor\n    user viewer password $6$rounds=5000$abc$Zq1\n\nbackend stats\n    acl auth_ok http_auth(ops_users)",
                "Qu1etHarbor",
            ),
            (
                "$ htpasswd -bc /etc/apache2/.htpasswd kiosk 'lemon drizzle 4'\nAdding password for user kiosk",
                "lemon drizzle 4",
            ),
            (
                'upstream legacy { server 10.0.2.4:8080; }\nlocation / {\n  proxy_set_header Authorization "Basic a2lvc2s6bGVtb24gZHJpenpsZSA0";\n  proxy_pass http://legacy;\n}',
                "a2lvc2s6bGVtb24gZHJpenpsZSA0",
            ),
            (
                '<Location /jmx>\n  RequestHeader set X-Jolokia-Auth "jlk_PuM4x7Wq2Zr9Ny"\n  ProxyPass http://127.0.0.1:8778/jolokia\n</Location>',
                "jlk_PuM4x7Wq2Zr9Ny",
            ),
        ),
    ),
    "brokers-lit-17": (
        "B",
        (
            ("127.0.0.1:6379> ACL SETUSER worker on >Kettle&Crumpet ~jobs:* +@all\nOK", "Kettle&Crumpet"),
            (
                "$ redis-cli -h cache.internal -a 'd0lphin$ea' --no-auth-warning INFO keyspace\n# Keyspace\ndb0:keys=4312,expires=120",
                "d0lphin$ea",
            ),
            ("mc = bmemcached.Client(['mc1.internal:11211'], 'app', 'Pebble-Dash-31')", "Pebble-Dash-31"),
            (
                "$ rabbitmqctl add_user svc_billing 'Mor3l!Mushroom'\nAdding user \"svc_billing\" ...\nDone.",
                "Mor3l!Mushroom",
            ),
            ("CELERY_BROKER_URL=amqps://billing:walrus-tusk-8@mq.internal:5671/%2F", "walrus-tusk-8"),
            (
                '$ kafka-console-producer.sh --bootstrap-server kafka:9093 --topic orders --producer-property \'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="etl" password="Cumulus_Nine_09";\'',
                "Cumulus_Nine_09",
            ),
            (
                "# librdkafka properties\nbootstrap.servers=pkc-1x2y.eu-west-1.aws.confluent.cloud:9092\nsasl.username=VKQ3ZJ7M5RT2WX4N\nsasl.password=Hk3bP9sQ2wE7rT5yU1iO8pA6sD4fG0hJ2kL9zX3cV7bN1mQ5wE8rT2yU6iO4pA0s",
                "Hk3bP9sQ2wE7rT5yU1iO8pA6sD4fG0hJ2kL9zX3cV7bN1mQ5wE8rT2yU6iO4pA0s",
            ),
        ),
    ),
    "iot-ha-17": (
        "B",
        (
            (
                '# secrets.yaml (Home Assistant)\nwifi_ssid: Bramble\nwifi_password: "hobbits in the shire"\nlatitude: 52.37\nlongitude: 4.89',
                "hobbits in the shire",
            ),
            (
                "# secrets.yaml\nmqtt_user: homeassistant\nmqtt_password: Teapot418\nhue_bridge_ip: 192.168.1.40",
                "Teapot418",
            ),
            (
                'esphome:\n  name: porch-light\nwifi:\n  ssid: "Bramble"\n  password: "banana-bread-2"\nota:\n  - platform: esphome\n    password: !secret ota_password',
                "banana-bread-2",
            ),
            (
                '19:02:11.438 CMD: Backlog MqttHost 192.168.1.5; MqttUser tasmota; MqttPassword Cornflakes7; Topic plug_3\n19:02:11.441 RSL: RESULT = {"MqttHost":"192.168.1.5"}',
                "Cornflakes7",
            ),
            (
                '// sketch.ino\nconst char* WIFI_SSID = "Bramble";\nconst char* WIFI_PASS = "Tulpenveld";\nconst char* MQTT_HOST = "192.168.1.5";',
                "Tulpenveld",
            ),
            ("$ mosquitto_passwd -b /etc/mosquitto/passwd sensor7 'Garden Gnome 5'", "Garden Gnome 5"),
            (
                "zigbee2mqtt:\n  mqtt:\n    server: mqtt://192.168.1.5\n    user: z2m\n    password: 'Marsbar!!'\n  advanced:\n    log_level: info",
                "Marsbar!!",
            ),
        ),
    ),
    "notebook-frames-17": (
        "B",
        (
            (
                "In [7]: df[['service', 'user', 'password']].head()\nOut[7]:\n     service   user      password\n0   postgres    etl   Otterpop99\n1      redis   None          None\n2      kafka    etl          None",
                "Otterpop99",
            ),
            (
                "In [3]: os.environ['OPENWEATHER_KEY']\nOut[3]: '8c1f4a7e2d9b6e3f0a5c1d8b7e4f2a90'",
                "8c1f4a7e2d9b6e3f0a5c1d8b7e4f2a90",
            ),
            (
                "   account_id       login            secret  active\n0        1001   ana.silva      Saudade2023    True\n1        1002   bo.nilsen             NaN   False\n[2 rows x 4 columns]",
                "Saudade2023",
            ),
            (
                "Sheet1.csv (exported from Excel)\nSystem,Owner,Username,Password,Last rotated\nVPN,IT,vpn-ana,Bananarama,2026-10-01\nWiki,IT,ana,(SSO),",
                "Bananarama",
            ),
            (
                '{\n "cell_type": "code",\n "outputs": [{"name": "stdout", "output_type": "stream", "text": ["connected as admin with pwd=kumquat-lane\\n"]}],\n "source": ["print(f\'connected as {user} with pwd={pwd}\')"]\n}',
                "kumquat-lane",
            ),
            (
                "| host | user | pass |\n|---|---|---|\n| 10.0.0.4 | root | toor2toor |\n| 10.0.0.5 | root | (key only) |",
                "toor2toor",
            ),
            (
                "In [12]: creds\nOut[12]: Credentials(username='svc_dash', password='🦊fox🦊2026', realm='CORP')",
                "🦊fox🦊2026",
            ),
        ),
    ),
    "ocr-voice-17": (
        "B",
        (
            (
                "[OCR of screenshot.png]\nWi-Fi\nNetwork: ACME-Guest\nPassword: Welcome2Acme\nValid until 31.12.2026",
                "Welcome2Acme",
            ),
            ("[OCR of sticky-note.jpg]\nserver room\nadmin\nPurpleRain84\ndo NOT remove", "PurpleRain84"),
            (
                "(voice transcript) okay so for the NAS just log in as admin and the password is Brokenwing77 with a capital B, all one word",
                "Brokenwing77",
            ),
            (
                "(dictated) hey can you update the staging env, the new database password is marmalade sky nineteen eighty seven all lowercase with spaces",
                "marmalade sky nineteen eighty seven",
            ),
            (
                "[tesseract output, photo of whiteboard]\nSPRINT 48\n- fix login bug\n- wifi: Bramble5G / Hello Darkness My Old Friend\n- demo Fri",
                "Hello Darkness My Old Friend",
            ),
            (
                "Transcribed voicemail: Hi it's Tom, the code for the build server is six six six nine one two, um, and the user is just tom. Bye.",
                "six six six nine one two",
            ),
        ),
    ),
    "lang-lit-17b": (
        "B",
        (
            ("ສະບາຍດີ! ລະຫັດຜ່ານຂອງເຊີບເວີທົດສອບແມ່ນ Mekong2025 ຢ່າບອກໃຜ.", "Mekong2025"),
            ("မင်္ဂလာပါ! စမ်းသပ်ဆာဗာရဲ့ စကားဝှက်က Yangon#1948 ပါ၊ ဘယ်သူ့ကိုမှ မပြောပါနဲ့။", "Yangon#1948"),
            ("Сайн байна уу! Туршилтын серверийн нууц үг нь Хонгор-77 шүү, хэнд ч битгий хэлээрэй.", "Хонгор-77"),
            ("Сәлем! Тест серверінің құпия сөзі Alatau2030 — ешкімге айтпа.", "Alatau2030"),
            ("Salom! Test serverining paroli Samarqand_1399, hech kimga aytma.", "Samarqand_1399"),
            ("Salam! Test serverinin şifrəsi Qarabağ2020-dir, heç kimə demə.", "Qarabağ2020"),
            ("გამარჯობა! ბაზის პაროლი არის ხაჭაპური12, შეცვალე ხვალ.", "ხაჭაპური12"),
            ("Բարև! Թեստային սերվերի գաղտնաբառը Ararat-5165 է, ոչ ոքի մի ասա։", "Ararat-5165"),
            ("שלום, הסיסמה של ה-VPN היא חתול שחור 12 — עם רווחים.", "חתול שחור 12"),
            ("السلام علیکم! ٹیسٹ سرور کا پاس ورڈ Lahore@1947 ہے، کسی کو نہ بتائیں۔", "Lahore@1947"),
            ("ਸਤ ਸ੍ਰੀ ਅਕਾਲ! ਟੈਸਟ ਸਰਵਰ ਦਾ ਪਾਸਵਰਡ Amritsar1577 ਹੈ, ਕਿਸੇ ਨੂੰ ਨਾ ਦੱਸਣਾ।", "Amritsar1577"),
            ("नमस्कार! चाचणी सर्व्हरचा पासवर्ड पुरणपोळी९९ आहे, कोणालाही सांगू नका.", "पुरणपोळी९९"),
            ("નમસ્તે! ટેસ્ટ સર્વરનો પાસવર્ડ Dhokla-Khaman-3 છે, કોઈને કહેશો નહીં.", "Dhokla-Khaman-3"),
            ("నమస్కారం! టెస్ట్ సర్వర్ పాస్‌వర్డ్ Biryani_Hyd_91, ఎవరికీ చెప్పకండి.", "Biryani_Hyd_91"),
            ("ನಮಸ್ಕಾರ! ಟೆಸ್ಟ್ ಸರ್ವರ್ ಪಾಸ್‌ವರ್ಡ್ Mysore.Pak.44 ಆಗಿದೆ, ಯಾರಿಗೂ ಹೇಳಬೇಡಿ.", "Mysore.Pak.44"),
            ("നമസ്കാരം! ടെസ്റ്റ് സെർവറിന്റെ പാസ്‌വേഡ് KeralaBlasters11 ആണ്, ആരോടും പറയരുത്.", "KeralaBlasters11"),
        ),
    ),
    "plates-lyrics-17b": (
        "B",
        (
            ("the garage door app login is my plate lol: KA-05-MX-2291", "KA-05-MX-2291"),
            ("wifi psk on the router sticker was changed to AB12 CDE (our old reg plate)", "AB12 CDE"),
            (
                "# ~/.config/rclone/rclone.conf\n[nas]\ntype = sftp\nhost = 192.168.1.20\nuser = ana\npass_plain = ISawHerStandingThere",
                "ISawHerStandingThere",
            ),
            ("printer admin: login admin, pass 'Is this the real life'", "Is this the real life"),
            ("$ nmcli dev wifi connect Bramble password '🍕🍕pizzatime🍕🍕'", "🍕🍕pizzatime🍕🍕"),
            ("camera NVR: admin / Alexandra1994", "Alexandra1994"),
            ("$ smbclient //nas/share -U 'ana%Boaty McBoatface'", "Boaty McBoatface"),
            ("$ lftp -u drop,'semi;colon;life' sftp://files.partner.example", "semi;colon;life"),
        ),
    ),
    "mid-output-17b": (
        "B",
        (
            (
                "$ docker exec mq env\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nHOSTNAME=8f2c1d9e0a7b\nRABBITMQ_VERSION=3.13.7\nOPENSSL_VERSION=3.1.7\nERLANG_INSTALL_PATH_PREFIX=/opt/erlang\nRABBITMQ_DEFAULT_USER=orders\nRABBITMQ_DEFAULT_PASS=Mangosteen\nRABBITMQ_DATA_DIR=/var/lib/rabbitmq\nHOME=/var/lib/rabbitmq\nLANG=C.UTF-8",
                "Mangosteen",
            ),
            (
                "$ journalctl -u backup --since today\nDec 05 02:00:01 nas systemd[1]: Started backup.service.\nDec 05 02:00:01 nas backup[4411]: restic -r sftp:bk@10.0.0.9:/repo backup /data\nDec 05 02:00:02 nas backup[4411]: RESTIC_PASSWORD=cranberry sauce\nDec 05 02:00:09 nas backup[4411]: Files: 12 new, 301 changed, 99812 unmodified\nDec 05 02:00:09 nas systemd[1]: backup.service: Deactivated successfully.",
                "cranberry sauce",
            ),
            (
                "$ supervisorctl status\ncelery                           RUNNING   pid 2201, uptime 3 days\nmailer                           RUNNING   pid 2202, uptime 3 days\n$ ps -o args= -p 2202\n/srv/mailer/venv/bin/python -m mailer --smtp-user noreply --smtp-pass Volcano2 --port 587\n$ supervisorctl tail mailer | tail -2\nsent 14 messages\nidle",
                "Volcano2",
            ),
            (
                "$ ansible-playbook site.yml -vvv | sed -n '402,407p'\n<10.0.1.11> ESTABLISHED SSH CONNECTION FOR USER: ubuntu\n<10.0.1.11> SSH: EXEC sshpass -d12 ssh -o ControlMaster=auto 10.0.1.11\nok: [web1] => (item={'name': 'grafana', 'pass': 'Trombone-Seven'})\nok: [web1] => (item={'name': 'loki', 'pass': None})\nPLAY RECAP",
                "Trombone-Seven",
            ),
        ),
    ),
    "vendor-17b": (
        "B",
        (
            (
                "HELIOGRID_TOKEN=hgd_pat_e3OheugYfcIjX5pwebaN1EHt09vCauvXsth4Ix4zWCDA6L6q",
                "hgd_pat_e3OheugYfcIjX5pwebaN1EHt09vCauvXsth4Ix4zWCDA6L6q",
            ),
            (
                '[plugins.tidewatch]\nendpoint = "https://ingest.tidewatch.io"\ningest_key = "tw1:eu:JGEP0fyiHMDkDXag+wWEvEDeuewbUWBbe2mQI2GJl/o="',
                "tw1:eu:JGEP0fyiHMDkDXag+wWEvEDeuewbUWBbe2mQI2GJl/o=",
            ),
            (
                'homebridge config.json: "platforms": [{"platform": "Nimbly", "apiToken": "nmb-7Q2W-9E4R-1T6Y-3U8I"}]',
                "nmb-7Q2W-9E4R-1T6Y-3U8I",
            ),
            (
                "$ sparrow auth set wIRGtx9lOBv5Bp5odxUmc8XncoLJsZKXwOpp\nauth saved to ~/.config/sparrow/auth.json",
                "wIRGtx9lOBv5Bp5odxUmc8XncoLJsZKXwOpp",
            ),
            (
                "mqtt:\n  broker: a3k9x2v7q1z4m8-ats.iot.eu-central-1.amazonaws.com\n  device_secret: dsk_Vn4tHF5BbsWb7WxgWvmc41rHw5jaI4",
                "dsk_Vn4tHF5BbsWb7WxgWvmc41rHw5jaI4",
            ),
        ),
    ),
}

BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    "ide-benign-17": (
        "A",
        (
            '// .vscode/settings.json\n{\n  "sqltools.connections": [{"name": "local", "driver": "PostgreSQL", "server": "localhost", "username": "shop", "askForPassword": true}]\n}',
            '"env": {\n  "DB_PASSWORD": "${env:DB_PASSWORD}",\n  "API_TOKEN": "${input:apiToken}"\n}',
            '<env name="LEDGER_DB_PASSWORD" value="$LEDGER_DB_PASSWORD$" />\n<env name="BUILD_ID" value="{h7}" />',
            '"inputs": [{"id": "apiToken", "type": "promptString", "description": "API token", "password": true}]',
            '<data-source name="orders@prod" uuid="{u}">\n  <secret-storage>master_key</secret-storage>\n  <auth-provider>keychain</auth-provider>\n</data-source>',
            '"editor.tokenColorCustomizations": {"textMateRules": [{"scope": "keyword.password", "settings": {"foreground": "#{h8}"}}]}',
        ),
    ),
    "debugger-benign-17": (
        "A",
        (
            "(Pdb) p form.cleaned_data\n{'username': 'ana', 'password': '********', 'remember': True}",
            '(gdb) p *ctx\n$1 = {id = 0x{h12}, session = "{u}", hash = "{h64}", refcount = 2}',
            '(lldb) frame variable\n(NSString *) passwordFieldPlaceholder = @"Enter your password"\n(NSUInteger) minLength = 12',
            '(dlv) print req.Header\nnet/http.Header [\n\t"X-Request-Id": ["{u}"],\n\t"If-None-Match": ["W/\\"{h32}\\""],\n]',
            "VARIABLES\n  Locals\n    password_hash: 'pbkdf2_sha256$870000${a24}${b43}'\n    user_id: 1001",
        ),
    ),
    "core-benign-17": (
        "A",
        (
            "$ strings core.18342 | grep -m3 -E 'GLIBC|build-id'\nGLIBC_2.34\nGLIBC_2.17\nbuild-id {h}",
            "$ file core.4411\ncore.4411: ELF 64-bit LSB core file, x86-64, version 1 (SYSV), SVR4-style, from './worker --config /etc/worker.toml', real uid: 1000",
            "$ xxd crash.dmp | head -2\n00000000: 4d44 4d50 93a7 0000 0d00 0000 2000 0000  MDMP........ ...\n00000010: 0000 0000 {h8} 0000 0000 0000 0000  ................",
        ),
    ),
    "migration-benign-17": (
        "A",
        (
            "-- migrations/0043_add_password_reset.sql\nALTER TABLE users ADD COLUMN password_hash varchar(255) NOT NULL;\nALTER TABLE users ADD COLUMN password_changed_at timestamptz;",
            "CREATE ROLE reporting LOGIN PASSWORD :'reporting_password';  -- psql -v reporting_password=... from the vault",
            "INSERT INTO users (email, password_hash) VALUES ('seed@acme.test', '$2b$12${c53}');",
            "class AddTokenDigestToApiKeys < ActiveRecord::Migration[7.1]\n  def change\n    add_column :api_keys, :token_digest, :string, null: false\n    add_index :api_keys, :token_digest, unique: true\n  end\nend",
            "# db/seeds.rb\nUser.create!(email: 'admin@acme.test', password: ENV.fetch('SEED_ADMIN_PASSWORD'))",
            "-- V8__checksums.sql  checksum: {h32}\nUPDATE artifacts SET sha256 = '{h64}' WHERE id = 17;",
        ),
    ),
    "fixtures-benign-17": (
        "A",
        (
            "# spec/fixtures/users.yml\nana:\n  email: ana@acme.test\n  encrypted_password: <%= User.new.send(:password_digest, 'password') %>",
            "id,username,email,password_set\n1,ana,ana@acme.test,true\n2,bo,bo@acme.test,false",
            '[{"id": "{u}", "etag": "\\"{h32}\\"", "size": 18231}]',
            "- model: shop.order\n  pk: 17\n  fields:\n    reference: ORD-{H4}-{H4}\n    tracking: 1Z{d9}",
            "def test_rejects_password_shorter_than_twelve_characters(client):\n    resp = client.post('/signup', data={'password': 'x' * 5})\n    assert resp.status_code == 422",
        ),
    ),
    "ci-benign-17": (
        "A",
        (
            '$ echo "CI_REGISTRY_PASSWORD=$CI_REGISTRY_PASSWORD"\nCI_REGISTRY_PASSWORD=[MASKED]',
            "#!/bin/bash -eo pipefail\necho $NPM_PUBLISH_TOKEN\n****************\nCircleCI received exit code 0",
            "[Pipeline] withCredentials\nMasking supported pattern matches of $NEXUS_PW\n+ mvn -B deploy -Dnexus.password=****",
            "~~~ Running commands\nBUILDKITE_BUILD_ID={u}\nBUILDKITE_COMMIT={h}\nBUILDKITE_AGENT_ID={u}",
            "Running with gitlab-runner 17.5.1 ({h8})\nGetting source from Git repository\nChecking out {h8} as detached HEAD (ref is main)...",
            "steps:\n  - name: publish\n    image: plugins/docker\n    settings:\n      password:\n        from_secret: docker_password",
            'variables:\n  DEPLOY_SSH_PASS:\n    description: "set in Settings > CI/CD > Variables (masked, protected)"',
        ),
    ),
    "k8s-cloudinit-benign-17": (
        "A",
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: checkout-config\n  annotations:\n    checksum/config: {h64}\ndata:\n  LOG_LEVEL: info\n  PAYMENTS_URL: https://pay.internal",
            "env:\n  - name: PAYMENTS_API_KEY\n    valueFrom:\n      secretKeyRef:\n        name: payments\n        key: api-key",
            "#cloud-config\nusers:\n  - name: ops\n    ssh_authorized_keys:\n      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{a24}{a14} ops@laptop\n    lock_passwd: true",
            "#cloud-config\nchpasswd:\n  expire: true\n  users:\n    - {name: ubuntu, password: $6$rounds=4096${c16}${c86}, type: hash}",
            "$ kubectl get cm legacy-env -o jsonpath='{.metadata.uid}'\n{u}",
        ),
    ),
    "lang-benign-17a": (
        "A",
        (
            "A palavra-passe deve ter pelo menos 12 caracteres, uma maiúscula e um número.",
            "O contrasinal está gardado no Vault en secret/data/proba; pídelle acceso a Uxía.",
            "La contrasenya no és correcta. Torna-ho a provar.",
            "Pasahitza ahaztu duzu? Sakatu hemen berrezartzeko.",
            "Rhaid i'r cyfrinair gynnwys o leiaf 12 nod.",
            "Ar ger-tremen n'eo ket mat. Klaskit en-dro.",
            "Wachtwurd ferjitten? Klik hjir.",
            "Die wagwoord moet ten minste 12 karakters lank wees.",
            "Nenosiri lako limebadilishwa kwa mafanikio.",
            "የይለፍ ቃልዎ ቢያንስ 12 ቁምፊዎች ሊኖሩት ይገባል።",
            "Kalmar sirri ba daidai ba ce. Sake gwadawa.",
            "Echefuru okwuntughe gị? Pịa ebe a.",
            "Furaha sirtu waa inay ahaataa ugu yaraan 12 xaraf.",
            "पासवर्ड कम्तिमा १२ अक्षरको हुनुपर्छ।",
            "මුරපදය වැරදියි. නැවත උත්සාහ කරන්න.",
            "ពាក្យសម្ងាត់ត្រូវមានយ៉ាងហោចណាស់ 12 តួអក្សរ។",
        ),
    ),
    "ids-benign-17a": (
        "A",
        (
            '<script src="https://cdn.example.com/app.{h8}.js" integrity="sha384-{sri384}" crossorigin="anonymous"></script>',
            "Content-Security-Policy: script-src 'self' 'nonce-{b64s}'",
            "gtag('config', 'G-{AK4}{H4}{AK4}');",
            '<div class="g-recaptcha" data-sitekey="6Le{a24}{a14}"></div>',
            "Docs example: AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "Fingerprint: SHA256:{b43} (ED25519)",
        ),
    ),
    "config-mgmt-benign-17": (
        "B",
        (
            '[web:vars]\nansible_user=ubuntu\nansible_become_password="{{ vault_become_password }}"',
            "$ ansible-vault view group_vars/all/vault.yml\nVault password: \nERROR! Decryption failed (no vault secrets were found that could decrypt)",
            "postgres:\n  users:\n    grafana:\n      password: {{ salt['vault'].read_secret('db/grafana')['password'] }}",
            "profile::mysql::root_password: ENC[PKCS7,{b64}]",
            "default['app']['smtp']['password'] = data_bag_item('smtp', 'creds')['password']",
            "$ANSIBLE_VAULT;1.1;AES256\n{vault}",
        ),
    ),
    "units-benign-17": (
        "B",
        (
            "[Service]\nEnvironmentFile=/etc/reports/reports.env\nLoadCredential=db-pass:/etc/credstore/reports-db\nExecStart=/opt/reports/bin/worker --db-pass-file=%d/db-pass",
            "$ systemctl show grafana-server -p InvocationID\nInvocationID={h32}",
            '[program:mailer]\ncommand=/srv/mailer/venv/bin/python -m mailer\nenvironment=MAILER_ENV="prod",MAILER_SMTP_PASS_FILE="/run/secrets/smtp"',
            "Dec 05 02:00:01 nas systemd[1]: Started backup.service - Nightly restic backup (unit {h16}).",
        ),
    ),
    "web-auth-benign-17": (
        "B",
        (
            'location /admin/ {\n    auth_basic "Restricted";\n    auth_basic_user_file /etc/nginx/.htpasswd;\n}',
            "admin:$apr1${c16}${a14}",
            "userlist ops_users\n    user viewer password $6$rounds=5000${c16}${c86}",
            "add_header Content-Security-Policy \"default-src 'self'; script-src 'nonce-{b64s}'\";",
            "ssl_trusted_certificate /etc/ssl/certs/ca.pem;  # sha256 fingerprint {colonhex}",
            'etag: "{h32}-gzip"',
        ),
    ),
    "brokers-benign-17": (
        "B",
        (
            '127.0.0.1:6379> ACL GETUSER worker\n1) "flags"\n2) 1) "on"\n3) "passwords"\n4) 1) "{h64}"',
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="etl" password="${file:/etc/kafka/creds.properties:etl.password}";',
            "$ rabbitmqctl list_users\nListing users ...\nuser\ttags\nsvc_billing\t[]\nops\t[administrator]",
            "CELERY_BROKER_URL=amqps://billing:${BROKER_PASSWORD}@mq.internal:5671/%2F",
            "redis.set('session:{h32}', json.dumps(payload), ex=3600)",
            "$ kafka-consumer-groups.sh --describe --group etl\nGROUP TOPIC PARTITION CURRENT-OFFSET\netl orders 0 {d9}",
        ),
    ),
    "iot-benign-17": (
        "B",
        (
            "wifi:\n  ssid: !secret wifi_ssid\n  password: !secret wifi_password",
            "mqtt:\n  username: !secret mqtt_user\n  password: !secret mqtt_password\n  discovery_prefix: homeassistant",
            '19:02:11.441 RSL: RESULT = {"MqttHost":"192.168.1.5","MqttUser":"tasmota","MqttPassword":"****"}',
            "[I][wifi:289]: Connected to 'Bramble' (BSSID {mac}), IP 192.168.1.77",
            "homeassistant:\n  name: Home\n  unique_id: {h32}\n  time_zone: Europe/Amsterdam",
            "const char* WIFI_PASS = WIFI_PASSWORD;  // from secrets.h, which is in .gitignore",
        ),
    ),
    "notebook-benign-17": (
        "B",
        (
            "In [7]: df[['user', 'password_hash']].head(2)\nOut[7]:\n   user                 password_hash\n0   etl  $argon2id$v=19$m=65536,t=3,p=4${b64s}${b43}\n1  ana                          None",
            "In [3]: os.environ.get('OPENWEATHER_KEY') is not None\nOut[3]: True",
            "   commit       build_id                 artifact\n0  {h7}  {u}  app-{h8}.tar.gz",
            "Sheet1.csv\nSystem,Owner,Password manager entry\nVPN,IT,op://IT/vpn/password\nWiki,IT,(SSO)",
            '{\n "metadata": {"kernelspec": {"name": "python3"}},\n "execution_count": 12,\n "id": "{h8}"\n}',
            "In [12]: creds\nOut[12]: Credentials(username='svc_dash', password=SecretStr('**********'), realm='CORP')",
        ),
    ),
    "ocr-voice-benign-17": (
        "B",
        (
            "[OCR of screenshot.png]\nSign in\nEmail\nPassword\nForgot password?\nShow password",
            "(voice transcript) reset the password for the staging box and put it in the vault, don't paste it here",
            "[OCR of login-error.png]\nThe password you entered is incorrect. 2 attempts remaining.",
            "[tesseract output]\nOrder #{d9}\nTracking: 1Z{H16}\nThank you!",
        ),
    ),
    "lang-benign-17b": (
        "B",
        (
            "ລະຫັດຜ່ານບໍ່ຖືກຕ້ອງ. ກະລຸນາລອງໃໝ່.",
            "စကားဝှက်မှားနေပါသည်။ ထပ်မံကြိုးစားပါ။",
            "Нууц үг хамгийн багадаа 12 тэмдэгттэй байх ёстой.",
            "Құпия сөзді ұмыттыңыз ба? Осы жерді басыңыз.",
            "Parol kamida 12 ta belgidan iborat bo'lishi kerak.",
            "Şifrə səhvdir. Yenidən cəhd edin.",
            "პაროლი უნდა შეიცავდეს მინიმუმ 12 სიმბოლოს.",
            "Գաղտնաբառը սխալ է։ Կրկին փորձեք։",
            "הסיסמה נשמרת ב-Vault תחת secret/data/staging, בקש גישה מדנה.",
            "پاس ورڈ کم از کم 12 حروف کا ہونا چاہیے۔",
            "ਪਾਸਵਰਡ ਗਲਤ ਹੈ। ਦੁਬਾਰਾ ਕੋਸ਼ਿਸ਼ ਕਰੋ।",
            "पासवर्ड विसरलात? येथे क्लिक करा.",
            "પાસવર્ડ ઓછામાં ઓછો 12 અક્ષરોનો હોવો જોઈએ.",
            "పాస్‌వర్డ్ తప్పు. మళ్లీ ప్రయత్నించండి.",
            "ಪಾಸ್‌ವರ್ಡ್ ಮರೆತಿರಾ? ಇಲ್ಲಿ ಕ್ಲಿಕ್ ಮಾಡಿ.",
            "പാസ്‌വേഡ് കുറഞ്ഞത് 12 അക്ഷരങ്ങൾ ഉണ്ടായിരിക്കണം.",
        ),
    ),
    "public-benign-17b": (
        "B",
        (
            "-----BEGIN PUBLIC KEY-----\n{b64}\n-----END PUBLIC KEY-----",
            "Dec 05 10:11:12 web1 sshd[2201]: Accepted publickey for deploy from 10.0.0.4 port 51822 ssh2: ED25519 SHA256:{b43}",
            "HOMEBRIDGE_SETUP_ID={AK4}  # printed on the QR label, not a secret",
            "git rev-parse HEAD\n{h}",
            "echo 'hello world from the build' | base64\naGVsbG8gd29ybGQgZnJvbSB0aGUgYnVpbGQK",
            "mqtt client id: porch-light-{h12}",
        ),
    ),
}
