"""Round 14 of the generated firewall corpus: secrets (most with their own literal values) and near-misses, written blind.

Written on 2026-12-05 as round 14 by a session that had not read the firewall's rules, its
documentation, its tests or their history, and that never ran the firewall on these samples: the
figures they give measure how the rules generalise to material written by someone who does not
know them. Only `secret_generators.py`, `secret_round12.py` and `secret_round13.py` were read, for
the data format and to pick families, syntaxes, languages and value shapes the earlier rounds did
not use.

Most secrets of this round are written by hand (`LITERAL_SECRETS`, 105 texts against 75 templates)
in the shapes real people and real tools produce: BIP39 seed phrases, PEM/PGP private keys pasted
with real or JSON-escaped newlines and with indentation, passwords printed by tools
(Elasticsearch, Jenkins, Argo CD, pwgen, openssl rand), base64 `user:pass` pairs (Basic headers,
docker `auth`, npm `_auth`), cluster join tokens (kubeadm, swarm, k3s), signatures of webhook and
SAS URLs, signed session cookies, ODBC brace escaping, Oracle quoting, passwords typed on the wrong
keyboard layout, pinyin-and-lucky-number passwords, dates and phone numbers, emoji, punctuation
that means something to the syntax around it, crypto-wallet keys (0x hex, Solana byte arrays, WIF),
multi-line recovery-code blocks, BitLocker/FileVault/systemd recovery keys, Wi-Fi QR payloads,
values in Chinese/Japanese/Arabic script and vendor tokens of formats the earlier rounds did not
use; many sit next to values that are not secrets (ids, key ids, public addresses, fingerprints,
serial numbers). None of them ever worked anywhere.

Tables:
- `SECRETS`: variant -> (fold, templates), each template holds `{s}` exactly once, as
  `_round(tag, secret_table, benign_table, token_length)` takes it.
- `LITERAL_SECRETS`: variant -> (fold, ((text, secret), ...)); `secret` occurs verbatim in `text`
  and each text is one sample, used as is.
- `BENIGN`: variant -> (fold, templates) of near-misses that hold no secret and no `{s}`, only
  `_FILLERS` placeholders for random-looking benign values.

The fold is decided by the family (tool, syntax, value shape or language), never by chance: fold A
holds data pipelines, search engines, chat bots, ACME DNS plugins, ERPs, virtualisation and
cloud-init, COBOL/Delphi/Ada, identity providers, web servers, crypto-wallet daemons, DB migration
tools, Tatar/Turkmen/Uyghur/Occitan/Romansh/Chichewa/Uzbek/Xhosa/Dhivehi, and the literal shapes
seed phrases, PEM/PGP blocks, tool-printed and random-CLI passwords, base64 credential pairs, join
tokens, webhook/SAS signatures, cookies, syntax punctuation, odd connection strings, Google OAuth,
three vendor groups, cloud key pairs and secrets among many other values; fold B holds home
automation, media servers, browser-test tools, R/Julia, mail clients, network file systems, JVM
build files, small-cloud CLIs, office macros, NAS/printers, Bashkir/Sesotho/Asturian/Upper
Sorbian/Shona/Quechua/Javanese/Wolof/Samoan, and the literal shapes keyboard-layout slips, pinyin
with numbers, dates and phone numbers, emoji, punctuated sentences, wallet keys, recovery-code
blocks, Kubernetes secrets and tokens, three vendor groups, escaping of .properties/compose/systemd,
non-Latin scripts, disk recovery keys and Wi-Fi payloads.

Failure: none at import; the tables are plain data (not wired into `generate()` here).
"""

# ruff: noqa: E501, RUF001 - a template is a turn's line (kept on one line), in the script it is written in

from __future__ import annotations

__all__ = ["BENIGN", "LITERAL_SECRETS", "SECRETS"]

SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "data-pipelines-14": (
        "A",
        (
            "$ airflow connections add 'warehouse_pg' --conn-type postgres --conn-host dw.internal --conn-login etl --conn-password '{s}' --conn-port 5432\nSuccessfully added `conn_id`=warehouse_pg : postgres://etl:******@dw.internal:5432",
            '# ~/.dbt/profiles.yml\nanalytics:\n  target: dev\n  outputs:\n    dev:\n      type: snowflake\n      account: xy12345.eu-central-1\n      user: DBT_LI\n      password: "{s}"\n      role: TRANSFORMER\n      warehouse: DEV_WH',
            '$ curl -s -X PUT localhost:8083/connectors/pg-sink/config -H \'Content-Type: application/json\' -d \'{"connector.class":"io.confluent.connect.jdbc.JdbcSinkConnector","connection.url":"jdbc:postgresql://dw:5432/raw","connection.user":"sink","connection.password":"{s}","topics":"orders"}\'',
        ),
    ),
    "search-14": (
        "A",
        (
            "$ curl -k -u 'elastic:{s}' 'https://localhost:9200/_cat/indices?v&s=index'\nhealth status index        uuid                   pri rep docs.count\ngreen  open   orders-2026  Zq1rT0mXQ2uPl9kE4wBvJg   1   0     184213",
            "  opensearch-node1:\n    image: opensearchproject/opensearch:2.18.0\n    environment:\n      - discovery.type=single-node\n      - OPENSEARCH_INITIAL_ADMIN_PASSWORD={s}\n    ports:\n      - 9200:9200",
            "$ ./meilisearch --db-path ./data.ms --env production --master-key='{s}' --http-addr 0.0.0.0:7700",
        ),
    ),
    "chatbots-14": (
        "A",
        (
            'import discord\n\nintents = discord.Intents.default()\nintents.message_content = True\nclient = discord.Client(intents=intents)\n\nclient.run("{s}")',
            '$ mmctl auth login https://chat.acme.dev --name acme --username sysadmin --password \'{s}\'\n\n  credentials for "acme": "sysadmin@https://chat.acme.dev" stored',
            '{\n  "homeserver": "https://matrix.acme.dev",\n  "user_id": "@deploybot:acme.dev",\n  "access_token": "{s}",\n  "device_id": "KXQWPLMNBV"\n}',
        ),
    ),
    "acme-dns-14": (
        "A",
        (
            "# /root/.secrets/certbot/cloudflare.ini (chmod 600)\ndns_cloudflare_api_token = {s}\n\n$ certbot certonly --dns-cloudflare --dns-cloudflare-credentials /root/.secrets/certbot/cloudflare.ini -d '*.acme.dev'",
            "$ export GANDIV5_PERSONAL_ACCESS_TOKEN={s}\n$ lego --email ops@acme.dev --dns gandiv5 --domains '*.acme.dev' run",
            '$ export DuckDNS_Token="{s}"\n$ ./acme.sh --issue --dns dns_duckdns -d home-lab.duckdns.org',
        ),
    ),
    "erp-14": (
        "A",
        (
            "[options]\naddons_path = /opt/odoo/addons,/opt/odoo/custom\nadmin_passwd = {s}\ndb_host = db\ndb_user = odoo\nhttp_port = 8069",
            "$ bench new-site erp.acme.dev --admin-password '{s}' --db-name erp_acme --install-app erpnext",
            "$dolibarr_main_db_host='localhost';\n$dolibarr_main_db_port='3306';\n$dolibarr_main_db_name='dolibarr';\n$dolibarr_main_db_user='doli';\n$dolibarr_main_db_pass='{s}';\n$dolibarr_main_db_type='mysqli';",
        ),
    ),
    "virt-14": (
        "A",
        (
            'source "vsphere-iso" "ubuntu" {\n  vcenter_server      = "vc01.acme.lan"\n  username            = "packer@vsphere.local"\n  password            = "{s}"\n  insecure_connection = true\n  ssh_username        = "ubuntu"\n}',
            "$ export GOVC_URL=https://vc01.acme.lan/sdk GOVC_USERNAME=administrator@vsphere.local GOVC_PASSWORD='{s}' GOVC_INSECURE=1\n$ govc ls /DC1/vm",
            "#cloud-config\nusers:\n  - name: ops\n    groups: [sudo]\n    lock_passwd: false\n    plain_text_passwd: '{s}'\n    shell: /bin/bash",
        ),
    ),
    "oldlangs-14": (
        "A",
        (
            "       WORKING-STORAGE SECTION.\n       01 WS-DB-USER     PIC X(8)  VALUE 'BATCHUSR'.\n       01 WS-DB-PASS     PIC X(24) VALUE '{s}'.\n           EXEC SQL CONNECT :WS-DB-USER IDENTIFIED BY :WS-DB-PASS END-EXEC.",
            "FDConnection1.Params.Values['Server'] := 'sql02';\nFDConnection1.Params.Values['User_Name'] := 'kasse';\nFDConnection1.Params.Values['Password'] := '{s}';\nFDConnection1.Connected := True;",
            'package Secrets is\n   Api_Token : constant String := "{s}";\nend Secrets;',
        ),
    ),
    "identity-14": (
        "A",
        (
            "$ /opt/keycloak/bin/kcadm.sh config credentials --server http://localhost:8080 --realm master --user admin --password '{s}'\nLogging into http://localhost:8080 as user admin of realm master",
            "  authentik-server:\n    image: ghcr.io/goauthentik/server:2024.10\n    environment:\n      AUTHENTIK_BOOTSTRAP_PASSWORD: {s}\n      AUTHENTIK_BOOTSTRAP_EMAIL: admin@acme.dev",
            "staticClients:\n- id: grafana\n  redirectURIs: ['https://grafana.acme.dev/login/generic_oauth']\n  name: Grafana\n  secret: {s}",
        ),
    ),
    "webserver-14": (
        "A",
        (
            "userlist admins\n    user ops insecure-password {s}\n\nfrontend stats\n    bind :8404\n    http-request auth realm stats unless { http_auth(admins) }\n    stats enable",
            'location /api/ {\n    proxy_pass http://upstream_api;\n    proxy_set_header X-Api-Key "{s}";\n    proxy_set_header Host $host;\n}',
            '<VirtualHost *:80>\n    ServerName legacy.acme.lan\n    SetEnv DB_PASS "{s}"\n    DocumentRoot /var/www/legacy\n</VirtualHost>',
        ),
    ),
    "wallets-14": (
        "A",
        (
            '$ bitcoin-cli -rpcwallet=cold walletpassphrase "{s}" 120\n$ bitcoin-cli -rpcwallet=cold getbalance\n0.41820000',
            "$ geth account import --datadir ./node1 --password <(echo '{s}') ./keys/deployer.key\nAddress: {3f5ce5fbfe3e9af3971dd833d26ba9b5c936f0be}",
            "# bitcoin.conf\nserver=1\nrpcuser=btcpay\nrpcpassword={s}\nrpcbind=127.0.0.1\nrpcallowip=127.0.0.1",
        ),
    ),
    "db-migrations-14": (
        "A",
        (
            "# conf/flyway.conf\nflyway.url=jdbc:postgresql://db.internal:5432/shop\nflyway.user=migrator\nflyway.password={s}\nflyway.locations=filesystem:sql",
            "# liquibase.properties\nchangeLogFile: db/changelog/db.changelog-master.yaml\nurl: jdbc:mysql://db.internal:3306/crm\nusername: liquibase\npassword: {s}",
            '// config/config.json (sequelize-cli)\n{\n  "production": {\n    "username": "shop",\n    "password": "{s}",\n    "database": "shop_prod",\n    "host": "db.internal",\n    "dialect": "postgres"\n  }\n}',
        ),
    ),
    "lang-14a": (
        "A",
        (
            "Серверның серсүзе {s}, беркемгә дә әйтмә",  # Tatar
            "Serweriň açar sözi {s}, hiç kime aýtma",  # Turkmen
            "مۇلازىمېتىرنىڭ مەخپىي نومۇرى {s}، ھېچكىمگە دېمەڭ",  # Uyghur
        ),
    ),
    "lang-14a2": (
        "A",
        (
            "Lo senhal del servidor es {s}, lo mandes pas per corrièl",  # Occitan
            "Il pled-clav dal server è {s}, na al dà a nagin",  # Romansh
            "Mawu achinsinsi a seva ndi {s}, usauze aliyense",  # Chichewa
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "home-auto-14": (
        "B",
        (
            '// ~/.node-red/settings.js\nmodule.exports = {\n    credentialSecret: "{s}",\n    uiPort: process.env.PORT || 1880,\n    flowFile: "flows.json",\n}',
            "# zigbee2mqtt/data/configuration.yaml\nmqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://10.0.0.20\n  user: z2m\n  password: '{s}'\nserial:\n  port: /dev/ttyUSB0",
            'Bridge mqtt:broker:home "Mosquitto" [ host="10.0.0.20", secure=false, username="openhab", password="{s}" ]',
        ),
    ),
    "media-14": (
        "B",
        (
            "<Config>\n  <BindAddress>*</BindAddress>\n  <Port>8989</Port>\n  <ApiKey>{s}</ApiKey>\n  <AuthenticationMethod>Forms</AuthenticationMethod>\n  <Branch>main</Branch>\n</Config>",
            "$ curl -s 'http://10.0.0.9:32400/library/sections/1/refresh?X-Plex-Token={s}'",
            '$ curl -s -H \'X-Emby-Token: {s}\' http://jellyfin.lan:8096/Items/Counts\n{"MovieCount":412,"SeriesCount":37,"EpisodeCount":1882}',
        ),
    ),
    "browser-tests-14": (
        "B",
        (
            '// cypress.env.json\n{\n  "baseUrl": "https://staging.acme.dev",\n  "admin_email": "qa-admin@acme.dev",\n  "admin_password": "{s}"\n}',
            'driver.find_element(By.ID, "username").send_keys("qa.bot")\ndriver.find_element(By.ID, "password").send_keys("{s}")\ndriver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()',
            "test.beforeEach(async ({ page }) => {\n  await page.goto('/login');\n  await page.getByLabel('Email').fill('qa@acme.dev');\n  await page.getByLabel('Password').fill('{s}');\n  await page.getByRole('button', { name: 'Sign in' }).click();\n});",
        ),
    ),
    "r-julia-14": (
        "B",
        (
            "# ~/.Renviron\nOPENAI_API_KEY={s}\nR_LIBS_USER=~/R/library",
            'con <- DBI::dbConnect(RPostgres::Postgres(), dbname = "trials", host = "db.lab",\n                      user = "analyst", password = "{s}")\nDBI::dbListTables(con)',
            'julia> using LibPQ\n\njulia> conn = LibPQ.Connection("host=db.lab dbname=trials user=analyst password={s}")\nPostgreSQL connection (CONNECTION_OK) with parameters:',
        ),
    ),
    "mail-clients-14": (
        "B",
        (
            '# ~/.muttrc\nset smtp_url = "smtps://li@acme.dev@smtp.acme.dev:465/"\nset smtp_pass = "{s}"\nset imap_user = "li@acme.dev"',
            "# ~/.mbsyncrc\nIMAPAccount acme\nHost imap.acme.dev\nUser li@acme.dev\nPass {s}\nSSLType IMAPS",
            "[Repository acme-remote]\ntype = IMAP\nremotehost = imap.acme.dev\nremoteuser = li@acme.dev\nremotepass = {s}\nsslcacertfile = /etc/ssl/certs/ca-certificates.crt",
        ),
    ),
    "netfs-14": (
        "B",
        (
            "$ sudo mount -t cifs //fs01.acme.lan/projects /mnt/projects -o username=li.wei,password='{s}',domain=ACME,vers=3.0,uid=1000",
            "$ rclone config create nas sftp host nas.lan user backup pass '{s}'\n[nas]\ntype = sftp\nhost = nas.lan\nuser = backup",
            "$ echo '{s}' | sshfs backup@nas.lan:/volume1/share /mnt/share -o password_stdin,reconnect",
        ),
    ),
    "jvm-build-14": (
        "B",
        (
            "# ~/.gradle/gradle.properties\nsigning.keyId=24875D73\nsigning.password={s}\nsigning.secretKeyRingFile=/home/li/.gnupg/secring.gpg",
            'credentials += Credentials("Sonatype Nexus Repository Manager", "s01.oss.sonatype.org", "acme-release", "{s}")',
            'db {\n  default {\n    driver = "org.postgresql.Driver"\n    url = "jdbc:postgresql://db.internal/shop"\n    username = "play"\n    password = "{s}"\n  }\n}',
        ),
    ),
    "small-clouds-14": (
        "B",
        (
            "$ HCLOUD_TOKEN={s} hcloud server list -o columns=name,status,ipv4\nNAME        STATUS    IPV4\nweb-1       running   203.0.113.21",
            "# ~/.ovh.conf\n[default]\nendpoint=ovh-eu\n\n[ovh-eu]\napplication_key=7kbG7Bk7S9Nt7ZSV\napplication_secret={s}",
            "$ export SCW_ACCESS_KEY=SCWXXSS4B2GQ9M7Y1HJT\n$ export SCW_SECRET_KEY={s}\n$ scw instance server list zone=fr-par-1",
        ),
    ),
    "office-14": (
        "B",
        (
            'Private Sub Workbook_Open()\n    Sheets("Payroll").Unprotect Password:="{s}"\n    Sheets("Payroll").Range("A1").Select\nEnd Sub',
            "function setup() {\n  PropertiesService.getScriptProperties().setProperty('HUBSPOT_TOKEN', '{s}');\n}",
            'oDB = createUnoService("com.sun.star.sdb.DatabaseContext").getByName("Lager")\noConn = oDB.getConnection("lager", "{s}")',
        ),
    ),
    "appliances-14": (
        "B",
        (
            "admin@DS920:~$ sudo synouser --setpw backup '{s}'\nadmin@DS920:~$ sudo synouser --get backup | head -3",
            '$ midclt call user.update 1000 \'{"password": "{s}"}\'\n1000',
            "Drucker 2. OG (Brother HL-L2350DW), Web-Oberfläche: http://10.0.0.31, Login admin / {s}",
        ),
    ),
    "lang-14b": (
        "B",
        (
            "Серверҙың серһүҙе {s}, бер кемгә лә әйтмә",  # Bashkir
            "Phasewete ya seva ke {s}, o se ke wa e bolella motho",  # Sesotho
            "La contraseña del sirvidor ye {s}, nun-y la mandes a naide",  # Asturian
        ),
    ),
    "lang-14b2": (
        "B",
        (
            "Hesło za serwer je {s}, njepósćel jo nikomu",  # Upper Sorbian
            "Pasiwedhi yeseva ndi {s}, usaudze munhu",  # Shona
            "Servidorpa pakasqa siminqa {s}, ama pimanpas willaychu",  # Quechua
        ),
    ),
}

LITERAL_SECRETS: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "seed-phrases-14": (
        "A",
        (
            (
                '# .env (hardhat, local fork only)\nMNEMONIC="orbit velvet canyon pledge tumble draft salmon wrist hazard eagle copper glance"\nFORK_URL=https://eth-mainnet.g.alchemy.com/v2/demo\nCHAIN_ID=31337',
                "orbit velvet canyon pledge tumble draft salmon wrist hazard eagle copper glance",
            ),
            (
                "Electrum → Wallet → Seed\n\nribbon tooth laptop museum frost anchor\nmixed jungle brave sudden oyster vintage\n\nPlease save these 12 words on paper (order is important).",
                "ribbon tooth laptop museum frost anchor\nmixed jungle brave sudden oyster vintage",
            ),
            (
                "for the treasury multisig, signer #2's words are: flame cargo idle twelve mention shrug autumn cactus ladder number pioneer venue rescue hint bubble orchard divorce spray wheat civil gossip uncover poem either — please put the paper in the safe, not in Notion",
                "flame cargo idle twelve mention shrug autumn cactus ladder number pioneer venue rescue hint bubble orchard divorce spray wheat civil gossip uncover poem either",
            ),
        ),
    ),
    "pem-pasted-14": (
        "A",
        (
            (
                '{\n  "type": "service_account",\n  "project_id": "acme-data-417",\n  "private_key_id": "0d00ce532840cdcda7a3168a6c2fd20ae721bfd1",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQKpV8MtDodSJqhx\\nYdjhlYhPg7hMFrnLPLKEyp5hPL6hjVgZfcl2ZosxTkBZcv8wlf+EnkNGWrZDB17+\\npvsBKvnARkQpqfLqxFmXoj1Aa+nXKmISA5tZts5ULzItqTUqI8MV4/sC/bIHft6Q\\nvl0sZeIqt2wO2n9zSJLg7VeMLGtjCloo4Z48JTkqOJxMp/cjm/VqDyovSmXtd/rz\\nUoXic6OCf9cvdbedpVCc52aKrznTRrV7me32X8A1TucdG3gZUAFGwWrCdObKvh4M\\nlHIuErUSBmflFZgm9JlPamFV6clwjIyV2p30jLyM71s4Kmf370j+PXFkKbgMbTWj\\nnTp8WOOrbo7p8cdnSHbH7yhAXP/vcpPMUpXex1uNx+HyrxiPZqOM5XZo+qa04DeK\\ny0718wzNHR6buiZ7I/UdaMPQUt0m2V61G3y+UOv3qZm4UKcH52nXktAghphQlgEQ\\nOa1VMOGP0ThvvzeHcrPEWrNw0KWdlGb413JK0YSdcFd+2oDsKnkwskKatbSUUIxI\\nfTkTOnPpvz7mCxabBrp3g7TanrSc5VG6/CLjCU5MdRlLHN52FQDzwJ3lU5tBYcIF\\nqn0H1226yQnvwJ1WBIZld108yykKc/ykg9UY+hbTkPL2T/Z7Mkh/c6AF5EEQicqq\\nQ77m2F4fEbX9OlZGX3WdQpEApTj8Zxx8OKxpYYngQMbfA5610di9RrfjmI9BijhZ\\n7vnsnjosDIlNYz6S19eJHKdiU/IF2DkEAZeYaGlMbWot0prbA9wJE/zLZfcHRQqT\\n4H5zx3Vakjzleun8bsh6SjcOt3/hYZJx9Gpb/pC1iPu1JFYcm3dZgSuul4xLHKm/\\n5W/48J65hva7EGOI3IozzJ+aDpOzNI9ggITaVLJVJGXbrc2qLgaFSNIzGWy5oi5w\\nyLS8cw1vzmQAT634t7DDCdyp6ct4PPSg2L5466eZHx7t6T1k5jcDg/zdU/1JTWkl\\n477d+D7hOOynPZvQX0ARc6mMSFyI3Vu6FkF02Hw/AmdOxIfVUDmCyQobR5IU2ISX\\nXMVwvaAZnDzG/GVr2zHjcWOYJDZW2udGqeTtbyHMppK4PsLcnOIduqfCC01fY+xV\\nZuV3sP/IiwqW6KA+0jPa+4Sa2cgK5BMgaIVBGoe4IwH663HQF6qxzhot+/Dxshps\\noJiJfhDkeQiIjGd8DPyIuVH/Y16wcwd3LHKKsZSzOt6lUFY82PdM/Ol8cldnKhMm\\n/TsbxzML1vxSs8zgcgEZKxbqU3Ypoq8hrEkbce93HaWIL9eIOiKK4EncssY/vHUA\\nD0AY5ORPiRI23xb8qvBJ/uQjAfB8iQRsR5edKGdvmpKTzD3j3Tzcpu2ON5jqUyf1\\nTBJiiIvBH592fuZbinPEm7m28eU9lDts4x1lVLUFuJwRbX14CIPxVrbYEZSeogb6\\nmkPnUGhERDLccTw7L+rMd9gEqilQrL6PcL1jJc4liiDHkME9bqZK+Q3YA61sLUsj\\nFndjgwbKRQCym8wxajNUTqBUdjyhvkcQBqkG+kivg9Wdrd/Hbz8MsWenrH7IxgRf\\n3y0aixUDxk9epiLMiYy0f9oUZk3xGP26J9ieqE+iqilsaUvTcijMOJbSErCZGsx2\\nXCXWK3sH7r\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "bq-loader@acme-data-417.iam.gserviceaccount.com",\n  "client_id": "104882193017745512094",\n  "token_uri": "https://oauth2.googleapis.com/token"\n}',
                "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQKpV8MtDodSJqhx\\nYdjhlYhPg7hMFrnLPLKEyp5hPL6hjVgZfcl2ZosxTkBZcv8wlf+EnkNGWrZDB17+\\npvsBKvnARkQpqfLqxFmXoj1Aa+nXKmISA5tZts5ULzItqTUqI8MV4/sC/bIHft6Q\\nvl0sZeIqt2wO2n9zSJLg7VeMLGtjCloo4Z48JTkqOJxMp/cjm/VqDyovSmXtd/rz\\nUoXic6OCf9cvdbedpVCc52aKrznTRrV7me32X8A1TucdG3gZUAFGwWrCdObKvh4M\\nlHIuErUSBmflFZgm9JlPamFV6clwjIyV2p30jLyM71s4Kmf370j+PXFkKbgMbTWj\\nnTp8WOOrbo7p8cdnSHbH7yhAXP/vcpPMUpXex1uNx+HyrxiPZqOM5XZo+qa04DeK\\ny0718wzNHR6buiZ7I/UdaMPQUt0m2V61G3y+UOv3qZm4UKcH52nXktAghphQlgEQ\\nOa1VMOGP0ThvvzeHcrPEWrNw0KWdlGb413JK0YSdcFd+2oDsKnkwskKatbSUUIxI\\nfTkTOnPpvz7mCxabBrp3g7TanrSc5VG6/CLjCU5MdRlLHN52FQDzwJ3lU5tBYcIF\\nqn0H1226yQnvwJ1WBIZld108yykKc/ykg9UY+hbTkPL2T/Z7Mkh/c6AF5EEQicqq\\nQ77m2F4fEbX9OlZGX3WdQpEApTj8Zxx8OKxpYYngQMbfA5610di9RrfjmI9BijhZ\\n7vnsnjosDIlNYz6S19eJHKdiU/IF2DkEAZeYaGlMbWot0prbA9wJE/zLZfcHRQqT\\n4H5zx3Vakjzleun8bsh6SjcOt3/hYZJx9Gpb/pC1iPu1JFYcm3dZgSuul4xLHKm/\\n5W/48J65hva7EGOI3IozzJ+aDpOzNI9ggITaVLJVJGXbrc2qLgaFSNIzGWy5oi5w\\nyLS8cw1vzmQAT634t7DDCdyp6ct4PPSg2L5466eZHx7t6T1k5jcDg/zdU/1JTWkl\\n477d+D7hOOynPZvQX0ARc6mMSFyI3Vu6FkF02Hw/AmdOxIfVUDmCyQobR5IU2ISX\\nXMVwvaAZnDzG/GVr2zHjcWOYJDZW2udGqeTtbyHMppK4PsLcnOIduqfCC01fY+xV\\nZuV3sP/IiwqW6KA+0jPa+4Sa2cgK5BMgaIVBGoe4IwH663HQF6qxzhot+/Dxshps\\noJiJfhDkeQiIjGd8DPyIuVH/Y16wcwd3LHKKsZSzOt6lUFY82PdM/Ol8cldnKhMm\\n/TsbxzML1vxSs8zgcgEZKxbqU3Ypoq8hrEkbce93HaWIL9eIOiKK4EncssY/vHUA\\nD0AY5ORPiRI23xb8qvBJ/uQjAfB8iQRsR5edKGdvmpKTzD3j3Tzcpu2ON5jqUyf1\\nTBJiiIvBH592fuZbinPEm7m28eU9lDts4x1lVLUFuJwRbX14CIPxVrbYEZSeogb6\\nmkPnUGhERDLccTw7L+rMd9gEqilQrL6PcL1jJc4liiDHkME9bqZK+Q3YA61sLUsj\\nFndjgwbKRQCym8wxajNUTqBUdjyhvkcQBqkG+kivg9Wdrd/Hbz8MsWenrH7IxgRf\\n3y0aixUDxk9epiLMiYy0f9oUZk3xGP26J9ieqE+iqilsaUvTcijMOJbSErCZGsx2\\nXCXWK3sH7r",
            ),
            (
                "# AuthKey_7X2K9Q4M1B.p8 (App Store Connect API, issuer 69a6de7e-1c2b-47e3-e053-5b8c7c11a4d1)\n-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgp9beKTI3JOeICuxY\npFa3CD9I7Nuevv3b8r3RX/su52FFBZ7snq/fM38cmTEaFvg72j4igdOxcaYN/HeZ\nZDuWh0vDOQcH0EaVXLiC0KdRkFI2TC082fEuDV35c17SXvyli94=\n-----END PRIVATE KEY-----",
                "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgp9beKTI3JOeICuxY\npFa3CD9I7Nuevv3b8r3RX/su52FFBZ7snq/fM38cmTEaFvg72j4igdOxcaYN/HeZ\nZDuWh0vDOQcH0EaVXLiC0KdRkFI2TC082fEuDV35c17SXvyli94=",
            ),
            (
                "jenkins:\n  credentials:\n    system:\n      domainCredentials:\n        - credentials:\n            - basicSSHUserPrivateKey:\n                id: deploy-key\n                username: deploy\n                privateKeySource:\n                  directEntry:\n                    privateKey: |\n    -----BEGIN RSA PRIVATE KEY-----\n    MIIEowIBAAKCAQEAeNHcx5k0SFC/k8LuJxOI0prlCS9n/oOzwsU0f3xqx5pbSVCy\n    SzTwPqxOkVVhnX970Dlb2F0m8tBQRSheiWuYGluyVbCxO1R6N0TTKDl0iPqXdIxY\n    TrRkCgeeAEidLdYK396JRpZO50gqM5FRFuPV0i+p2+KgBeihXUi1uS/S68BK2s8Q\n    2IlGG09rHsK4jBxqP+AimSGu0PZWuhAcGzEHfU4YZhZqOg/tmkX5AxNbbGmjiCDn\n    f6Bss5XTMPojKbW5VADk/Pt2oNMpZHOCtwcOqejU8ATWzcngq5ejhuyJem4FS3jU\n    5ZsWwhdCKva9/2POszvUxtWOER9iYiBgRrkg2g+6JYpsKuUwfhDdwVet9fhVwuVc\n    Dnn7Lg7+FOD8VX2B3ih3vPgBPrDp7ILx9uUjuSgZJEMXB3HfZ+0d66KGnNGlpAu1\n    Nd4a+FIClVV9M5s0qg2W7coQAUUF02/dsTnd9iQ3e1UAZycBCEm1iKypbL6wdGJJ\n    o8pDAwGLnEiyieRCTTrSVT0/Y2y6ZnAtkUxw9df7OXE+Ans+4szuuWFkG66Kvtlg\n    kDcWc7xRPkDRP9uDjvpM6ymXr6cTX8FKSS9d3gctrziM6BOrKprERNnam5ceA34B\n    UF4j4gvpMvuLjusb49t2S4OLRIBCC0h1KCxBr3nFIhaXL0+uEF2JDjFER0aCL+hz\n    FATj0dwJGO/dtiqJ0eFx0pxEufcKJRGxfoGGlhT4ge37mvn+AfjoLkEdvO8X1vIt\n    kKE1xCZxxZx52WU95du6YFya0l+0gx2BPblsFbMjiO84NDA0\n    -----END RSA PRIVATE KEY-----",
                "MIIEowIBAAKCAQEAeNHcx5k0SFC/k8LuJxOI0prlCS9n/oOzwsU0f3xqx5pbSVCy\n    SzTwPqxOkVVhnX970Dlb2F0m8tBQRSheiWuYGluyVbCxO1R6N0TTKDl0iPqXdIxY\n    TrRkCgeeAEidLdYK396JRpZO50gqM5FRFuPV0i+p2+KgBeihXUi1uS/S68BK2s8Q\n    2IlGG09rHsK4jBxqP+AimSGu0PZWuhAcGzEHfU4YZhZqOg/tmkX5AxNbbGmjiCDn\n    f6Bss5XTMPojKbW5VADk/Pt2oNMpZHOCtwcOqejU8ATWzcngq5ejhuyJem4FS3jU\n    5ZsWwhdCKva9/2POszvUxtWOER9iYiBgRrkg2g+6JYpsKuUwfhDdwVet9fhVwuVc\n    Dnn7Lg7+FOD8VX2B3ih3vPgBPrDp7ILx9uUjuSgZJEMXB3HfZ+0d66KGnNGlpAu1\n    Nd4a+FIClVV9M5s0qg2W7coQAUUF02/dsTnd9iQ3e1UAZycBCEm1iKypbL6wdGJJ\n    o8pDAwGLnEiyieRCTTrSVT0/Y2y6ZnAtkUxw9df7OXE+Ans+4szuuWFkG66Kvtlg\n    kDcWc7xRPkDRP9uDjvpM6ymXr6cTX8FKSS9d3gctrziM6BOrKprERNnam5ceA34B\n    UF4j4gvpMvuLjusb49t2S4OLRIBCC0h1KCxBr3nFIhaXL0+uEF2JDjFER0aCL+hz\n    FATj0dwJGO/dtiqJ0eFx0pxEufcKJRGxfoGGlhT4ge37mvn+AfjoLkEdvO8X1vIt\n    kKE1xCZxxZx52WU95du6YFya0l+0gx2BPblsFbMjiO84NDA0",
            ),
        ),
    ),
    "pgp-p12-14": (
        "A",
        (
            (
                "$ gpg --export-secret-keys --armor 9F2C4A17E0B3D855\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGdRm3sBDAC5aEyK2vWUZ7s6woe1Ip85y/SfO/cnqGYqt7nN3jl6ljlcHSud\nR1sZp3C8Ub0nPrlgkaTGj20X1hvzWU30dQg5j4ZLGbSul+2zGCaSWq1TzwCGstxM\nrFJ8GIrBgWJxBUvwmqls5D6qUnpqTWJ+7I/5AJqG8tfEwY+i8edY8yzGDVTkEo6j\nMtsw21gzVCb6qgZXOUT6tihGen2k0gU6xTk3Qg5Mb44JxRO5zjRYlEV/9xylUyzw\nqI/YRKr1CNgY6c0s8KLZXB/LUecDybsC66Ay8CFfJzVRRlB8kwpaW+lJXLCRBEbU\nv4zj+LVN33WVGqgTDuWekgcJnbb686wOEo2tUfhzpobmtT/O2HqjRb+MGgF2dwWW\n/6V6RtTiX1iavWnYCqTWemaCOTbWXdjsjc9DSr7PauBHB64KKvwImSSDOWAEK8oX\nTKEWp5D9ybWLY17bdkJNgSJfH81ujpiRmhqxnLWOjBABquqbdI1FUqB3NvQDRlhN\nMjyeuvjE/J2HKgqONxzUdaOmASzZHoE0jeQnl7cIsCziDXHmWcSsChatxMYez1Vw\n/2/3fZ73svdGOiyz/o6hn1R3qx7Z4Afgdeutsbqwnzqq2tyWVQEMrLUkxVfKIH7w\ncUtyWZ7dBR0USGzsXOSw9i28HFwbDt7CjHkT9iSmDrFyerGxRHyfsMzuKxMzELz7\nmO4AViJ/CnxrvD8R4w1W8meH5aop6F4\n=jNui\n-----END PGP PRIVATE KEY BLOCK-----",
                "lQVYBGdRm3sBDAC5aEyK2vWUZ7s6woe1Ip85y/SfO/cnqGYqt7nN3jl6ljlcHSud\nR1sZp3C8Ub0nPrlgkaTGj20X1hvzWU30dQg5j4ZLGbSul+2zGCaSWq1TzwCGstxM\nrFJ8GIrBgWJxBUvwmqls5D6qUnpqTWJ+7I/5AJqG8tfEwY+i8edY8yzGDVTkEo6j\nMtsw21gzVCb6qgZXOUT6tihGen2k0gU6xTk3Qg5Mb44JxRO5zjRYlEV/9xylUyzw\nqI/YRKr1CNgY6c0s8KLZXB/LUecDybsC66Ay8CFfJzVRRlB8kwpaW+lJXLCRBEbU\nv4zj+LVN33WVGqgTDuWekgcJnbb686wOEo2tUfhzpobmtT/O2HqjRb+MGgF2dwWW\n/6V6RtTiX1iavWnYCqTWemaCOTbWXdjsjc9DSr7PauBHB64KKvwImSSDOWAEK8oX\nTKEWp5D9ybWLY17bdkJNgSJfH81ujpiRmhqxnLWOjBABquqbdI1FUqB3NvQDRlhN\nMjyeuvjE/J2HKgqONxzUdaOmASzZHoE0jeQnl7cIsCziDXHmWcSsChatxMYez1Vw\n/2/3fZ73svdGOiyz/o6hn1R3qx7Z4Afgdeutsbqwnzqq2tyWVQEMrLUkxVfKIH7w\ncUtyWZ7dBR0USGzsXOSw9i28HFwbDt7CjHkT9iSmDrFyerGxRHyfsMzuKxMzELz7\nmO4AViJ/CnxrvD8R4w1W8meH5aop6F4",
            ),
            (
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: kafka-client-keystore\ntype: Opaque\ndata:\n  keystore.p12: zitvX+K1vN2xkKCgHTBqvdV8YGY0XaceJay1Aagf7Ph3ae7tckIArqq5fpiXQWdNlWfwR7wO3Bn37nZiCu7KMpEfA1SntLMjhNfkMXkEwNL3aRQDRz+4YRYNocz7MBmOP1V6JqUHrh7L8EehyraM8/9tOgSZ7j0v2uAfw6f8d4xv7q1Lcpg2fM5gWKYLywKAHVupFI2M5D2EvHzFctj5DBuBtPif1D2o4hVOvhNM2hwnQkSy7A2nlbCiEnB23sTY8vMqmwlDXeQUlmUO6PWkRQykLEyjyy0W7LuSIm0u3N9B5QBUN7z+jC3qBrnq90iTsZAjFEzlMCOTa/HPnX4sJ6mEn50iWIurRdNTvIRpiXfEFVW2qoBzhofxgMDD7Nt1szk3D4KAnrmvG4Kc83Bgj/CfG33nvN2QxQK8q5ewzdNHeKnJko+0wZVdwNt6AcRV8DT4SLwLnfQ5pac/NFWdltg1zudLA3VdUFa4c9Cs7K5vBpHpnM0sXasWCb7ebqcH/fNcu89q3aHHm4dcysyDnlHQHRvmiS/BrQgI/7jS6s4lAs1kDyc2HhaYasg9zUYU5xwVSB9GIjGLp5oh1cZro7HBUaMZQa71xrWnDeNCHVT1381VNTj1St8vkNaKhglwEiUS+An0xAxMcG14RpbHTUX7H8wC+xYjt6eY9rvFnoeiIUU2WzAwckDrV49C8lXrr8OxGnwbPsq4pgj3QuEqvKuRG45HPr+BIo5yPzOuj4VmL3wfiafdIRTTl47qpR0DQZm7r5bsCWY5s6aevtBiYcfQ1CMdN7DG4vgUxN72QE7LDn4bLGYJlFh55MxMOnKdUxjt/WZX51foCkVeWIKx1TiDgeRAxwvt3fJma7tOHtaWp8YoPcUgrKxNG2/cE2BNxJlDHNzJp6hKImiJel/TvegZSW579OptdZfO9SmJKpgAq07AopukDrcLI+vMwBtB0rDS4rN3G6R4Q/FYnUUTwWerr9dxSQujk1W90Tc1M1TcUFf8WMPwd+IH7wZZa9gNNJ+8HUH8SW/fNwZf849otnM/k9qEO8+UdNx1TiI8UDWu8GkK8OCF4eB8TvlWoFaECR638GETUY/ud1d6wYy2rjUyP5OJeOzck/QCTvfRuBQJMZ1oWTLKncS/dqiq0zEeK+CV00QKULn33FaujubJOFsqE459SGCeE64yG8cxEVYh1KCOR8S4bMm1EAnPkYVjeEiewNldWShqRoldp2hwXrb8cA08FWUBc5RvoLk42nhiGPXmJ+Ga0QF/QKahQ5wMJQrlZ1Kdvt9/pGaM6iO3BzgjRGqqppNnyFCboG9dpCLViNUIBZdFbcI/2J6mhH3FLyGDj3jr9+c1ThH7+0HqZEbI8Pt1HUcL5v9NBNZwwksHTsZR6cYuEpqHT7g1utO1UkC9w+NFRy1cpxFGE/D1eNwBubofymy7rXLPenIt/aP7298YdCEW8XQGlfKOQcWwG8ZMaznskE+dOa9S1G8ggeIvjgfd7WKRwmERg9dIfYf+U5XHIqYvmgKuHMCbAkUPu/QdQ7sTzWI99+OqcxMbJekf158rCjSpaOwdtQ==\n  keystore.type: UEtDUzEy",
                "zitvX+K1vN2xkKCgHTBqvdV8YGY0XaceJay1Aagf7Ph3ae7tckIArqq5fpiXQWdNlWfwR7wO3Bn37nZiCu7KMpEfA1SntLMjhNfkMXkEwNL3aRQDRz+4YRYNocz7MBmOP1V6JqUHrh7L8EehyraM8/9tOgSZ7j0v2uAfw6f8d4xv7q1Lcpg2fM5gWKYLywKAHVupFI2M5D2EvHzFctj5DBuBtPif1D2o4hVOvhNM2hwnQkSy7A2nlbCiEnB23sTY8vMqmwlDXeQUlmUO6PWkRQykLEyjyy0W7LuSIm0u3N9B5QBUN7z+jC3qBrnq90iTsZAjFEzlMCOTa/HPnX4sJ6mEn50iWIurRdNTvIRpiXfEFVW2qoBzhofxgMDD7Nt1szk3D4KAnrmvG4Kc83Bgj/CfG33nvN2QxQK8q5ewzdNHeKnJko+0wZVdwNt6AcRV8DT4SLwLnfQ5pac/NFWdltg1zudLA3VdUFa4c9Cs7K5vBpHpnM0sXasWCb7ebqcH/fNcu89q3aHHm4dcysyDnlHQHRvmiS/BrQgI/7jS6s4lAs1kDyc2HhaYasg9zUYU5xwVSB9GIjGLp5oh1cZro7HBUaMZQa71xrWnDeNCHVT1381VNTj1St8vkNaKhglwEiUS+An0xAxMcG14RpbHTUX7H8wC+xYjt6eY9rvFnoeiIUU2WzAwckDrV49C8lXrr8OxGnwbPsq4pgj3QuEqvKuRG45HPr+BIo5yPzOuj4VmL3wfiafdIRTTl47qpR0DQZm7r5bsCWY5s6aevtBiYcfQ1CMdN7DG4vgUxN72QE7LDn4bLGYJlFh55MxMOnKdUxjt/WZX51foCkVeWIKx1TiDgeRAxwvt3fJma7tOHtaWp8YoPcUgrKxNG2/cE2BNxJlDHNzJp6hKImiJel/TvegZSW579OptdZfO9SmJKpgAq07AopukDrcLI+vMwBtB0rDS4rN3G6R4Q/FYnUUTwWerr9dxSQujk1W90Tc1M1TcUFf8WMPwd+IH7wZZa9gNNJ+8HUH8SW/fNwZf849otnM/k9qEO8+UdNx1TiI8UDWu8GkK8OCF4eB8TvlWoFaECR638GETUY/ud1d6wYy2rjUyP5OJeOzck/QCTvfRuBQJMZ1oWTLKncS/dqiq0zEeK+CV00QKULn33FaujubJOFsqE459SGCeE64yG8cxEVYh1KCOR8S4bMm1EAnPkYVjeEiewNldWShqRoldp2hwXrb8cA08FWUBc5RvoLk42nhiGPXmJ+Ga0QF/QKahQ5wMJQrlZ1Kdvt9/pGaM6iO3BzgjRGqqppNnyFCboG9dpCLViNUIBZdFbcI/2J6mhH3FLyGDj3jr9+c1ThH7+0HqZEbI8Pt1HUcL5v9NBNZwwksHTsZR6cYuEpqHT7g1utO1UkC9w+NFRy1cpxFGE/D1eNwBubofymy7rXLPenIt/aP7298YdCEW8XQGlfKOQcWwG8ZMaznskE+dOa9S1G8ggeIvjgfd7WKRwmERg9dIfYf+U5XHIqYvmgKuHMCbAkUPu/QdQ7sTzWI99+OqcxMbJekf158rCjSpaOwdtQ==",
            ),
            (
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQIe/lkDp/iJQcoGoHK\nhssTsWOOd2zwhfToLzHMCHPNAwhD2BuNr8Sv+aI/Pn7e2v3Uk5ImNZRYamDI+N8V\nnUGe76c0gW+iuGME117M66tshXpmjiWhssg/Hr1963jxdGecbKOakuItNpcItVaX\niD7ootAoBFdfRbqwnJ9T7+EUjhrlIuuwh3migL3nwapRS5OQyL1axzs6ugxlHKb7\ntQXlqq6eTd4jBSCvjzOy4m0luDp+dFT2QCfDJui9ivSmjQXLDpk8fSWLLVoAjFaA\ntMgeSM7p8LyMfq6XNE0kAQyaLrlYNfjWFJgR0sB42fFPVSL/5Ul53XTFnXUsNavS\nGne9kTKsyjtSe9c0HApjLrVqqg3uUJKDtmEaJ/jsDNOSG5qPD6C63vdoDU3068F1\nxlebAY7WFuf5Xe1tMSJN9AMgmMTZCi02D0FqRTyrwOdjwMBi7CUMDM3rODR5h5Pg\nmZlI+lIb27pniHxjKJS765hTstCvwpILNIQzT6riE1XSzHPQ05XwW55wbnmRlP4x\navResM4cdrdG9KI2AStJvp/VZRWh3pywTPepuGZ/j+KYLUWT+RW4+n3gKfB/U/8T\nYkbCDuMgJ/i9UUKhQXa1lfTOfJW3/f4sOc5VnyHFkrRKfHQGQTxGFAulN87uaDab\n1uSmFeSAtK6KQNIzcAQku6SAB1+gCEbO4Hh3wnuVmwksCdy76BI48Dmtzm1Sa1eK\nUJGOcn/QBYhK4M6nQeK/lrkdHgbcjnMIodjyr39ngt9q+qhU849hEjs5qx1GTgeX\nh4QtwcqsdlB2CvF1+4fdl6wpxLvOwAGcaBKuRLB75C/v0iAexQsjIdJakl/g6ze2\n4tGnK4t23tPdS43EZl/FnZ+ok856M0dbZfTxe6jo4qN8UeOGM4vXpFcWGQdv8y/U\nJzZ7i5goJZtP5uYNHQ53Sp8KonfDMRAgZOYVes/Obirc3eGvrm1qHNV8fXzdzVRa\nLXRqMy+trIRm1erG8UiUJJ2nBhOPWDKM8V2aF7ron7jn50oEG23lKieHzNQ8FS4Z\ng6AdOiiTkvhIkwDysjcOcP0Q7wprXpUCO98jAKnTn/l8GNC+jlRHgzw+Rr8SyGL8\nLVP78Q3Sfw98Xg5tbfgdR6JGLvSsUnDbDFBkXAd+QAsxPlvTIyGQdnl2tfhwP502\nQ7nNA9JCM+/rODEg2JiJmgNMzafgZXALWuh6VKWzsSFfWjF/El+intOCUgj7qS7x\nS/vxbRbnQp96CeO1V0E3q7W0OknW7AsKDxK17aklyVwBF/8+hiymA4GzqIN4ZSAA\nnJec7H80j3BikTxtdTyqcUUpZKhHf+ZDJ+69G9h8uFvBdpOsrlXVXAT15dVFPA/G\nA7eFRh9GUMaFk+hynjfz0rF/jx941h1hDRB+yh3pUXBKqkpcB2dnUYMU6vxAOhiE\nPgz2iDC7p5Hd4NMZfh/dAZJvqWjWeekfJUZi8/XvKyAMgniXh014jj80O0udns9m\nqn3933T1ky2qw4uAdhaEBlD4hO0PjHdqOAkoG0DTwL79r4fphCGXEoAg+WuD2KaU\nyrnHOuzfpn3wYQnQeO6DyfgVZTrr7MMZeTpQuGe1aHI1sZ8Vunq6c7zzdKJkUifF\n3FgsXatpSaEBfUvDZA20EN1ltqo7/MeroPiBkS0LKxXf2ru/61U=\n-----END ENCRYPTED PRIVATE KEY-----\n(that's tls/server.key from the old box; the passphrase is in the ops safe)",
                "MIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQwwDgQIe/lkDp/iJQcoGoHK\nhssTsWOOd2zwhfToLzHMCHPNAwhD2BuNr8Sv+aI/Pn7e2v3Uk5ImNZRYamDI+N8V\nnUGe76c0gW+iuGME117M66tshXpmjiWhssg/Hr1963jxdGecbKOakuItNpcItVaX\niD7ootAoBFdfRbqwnJ9T7+EUjhrlIuuwh3migL3nwapRS5OQyL1axzs6ugxlHKb7\ntQXlqq6eTd4jBSCvjzOy4m0luDp+dFT2QCfDJui9ivSmjQXLDpk8fSWLLVoAjFaA\ntMgeSM7p8LyMfq6XNE0kAQyaLrlYNfjWFJgR0sB42fFPVSL/5Ul53XTFnXUsNavS\nGne9kTKsyjtSe9c0HApjLrVqqg3uUJKDtmEaJ/jsDNOSG5qPD6C63vdoDU3068F1\nxlebAY7WFuf5Xe1tMSJN9AMgmMTZCi02D0FqRTyrwOdjwMBi7CUMDM3rODR5h5Pg\nmZlI+lIb27pniHxjKJS765hTstCvwpILNIQzT6riE1XSzHPQ05XwW55wbnmRlP4x\navResM4cdrdG9KI2AStJvp/VZRWh3pywTPepuGZ/j+KYLUWT+RW4+n3gKfB/U/8T\nYkbCDuMgJ/i9UUKhQXa1lfTOfJW3/f4sOc5VnyHFkrRKfHQGQTxGFAulN87uaDab\n1uSmFeSAtK6KQNIzcAQku6SAB1+gCEbO4Hh3wnuVmwksCdy76BI48Dmtzm1Sa1eK\nUJGOcn/QBYhK4M6nQeK/lrkdHgbcjnMIodjyr39ngt9q+qhU849hEjs5qx1GTgeX\nh4QtwcqsdlB2CvF1+4fdl6wpxLvOwAGcaBKuRLB75C/v0iAexQsjIdJakl/g6ze2\n4tGnK4t23tPdS43EZl/FnZ+ok856M0dbZfTxe6jo4qN8UeOGM4vXpFcWGQdv8y/U\nJzZ7i5goJZtP5uYNHQ53Sp8KonfDMRAgZOYVes/Obirc3eGvrm1qHNV8fXzdzVRa\nLXRqMy+trIRm1erG8UiUJJ2nBhOPWDKM8V2aF7ron7jn50oEG23lKieHzNQ8FS4Z\ng6AdOiiTkvhIkwDysjcOcP0Q7wprXpUCO98jAKnTn/l8GNC+jlRHgzw+Rr8SyGL8\nLVP78Q3Sfw98Xg5tbfgdR6JGLvSsUnDbDFBkXAd+QAsxPlvTIyGQdnl2tfhwP502\nQ7nNA9JCM+/rODEg2JiJmgNMzafgZXALWuh6VKWzsSFfWjF/El+intOCUgj7qS7x\nS/vxbRbnQp96CeO1V0E3q7W0OknW7AsKDxK17aklyVwBF/8+hiymA4GzqIN4ZSAA\nnJec7H80j3BikTxtdTyqcUUpZKhHf+ZDJ+69G9h8uFvBdpOsrlXVXAT15dVFPA/G\nA7eFRh9GUMaFk+hynjfz0rF/jx941h1hDRB+yh3pUXBKqkpcB2dnUYMU6vxAOhiE\nPgz2iDC7p5Hd4NMZfh/dAZJvqWjWeekfJUZi8/XvKyAMgniXh014jj80O0udns9m\nqn3933T1ky2qw4uAdhaEBlD4hO0PjHdqOAkoG0DTwL79r4fphCGXEoAg+WuD2KaU\nyrnHOuzfpn3wYQnQeO6DyfgVZTrr7MMZeTpQuGe1aHI1sZ8Vunq6c7zzdKJkUifF\n3FgsXatpSaEBfUvDZA20EN1ltqo7/MeroPiBkS0LKxXf2ru/61U=",
            ),
        ),
    ),
    "tool-printed-14": (
        "A",
        (
            (
                "$ bin/elasticsearch-reset-password -u elastic\nThis tool will reset the password of the [elastic] user to an autogenerated value.\nThe password will be printed in the console.\nPlease confirm that you would like to continue [y/N]y\n\n\nPassword for the [elastic] user successfully reset.\nNew value: q*Xr7=pL_0wVnZ+e2TkM",
                "q*Xr7=pL_0wVnZ+e2TkM",
            ),
            (
                "$ docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword\n1feec0d2f5407ecef7ec084f48565a31\n$ open http://localhost:8080",
                "1feec0d2f5407ecef7ec084f48565a31",
            ),
            (
                "$ kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath='{.data.password}' | base64 -d\nFwZ3nq7YkLp0T2xR$ kubectl -n argocd port-forward svc/argocd-server 8080:443",
                "FwZ3nq7YkLp0T2xR",
            ),
        ),
    ),
    "random-cli-14": (
        "A",
        (
            (
                "$ pwgen -sy 24 1\nn9}Xq'L2;vT<8mR^eK@4z&Wb\n$ # paste that into the BMC web form",
                "n9}Xq'L2;vT<8mR^eK@4z&Wb",
            ),
            (
                "$ openssl rand -base64 32\nGXbzZ+cDSgkcd7J2bbts1bA+ag1yZsIjC70tN9KYpHw=\n\nok, use that as JWT_SIGNING_SECRET on staging and keep prod's as is",
                "GXbzZ+cDSgkcd7J2bbts1bA+ag1yZsIjC70tN9KYpHw=",
            ),
            (
                "$ LC_ALL=C tr -dc 'A-Za-z0-9!?%' </dev/urandom | head -c 20; echo\nk7?RwQ2%mZ9pLx!4aTn8",
                "k7?RwQ2%mZ9pLx!4aTn8",
            ),
        ),
    ),
    "basic-b64-14": (
        "A",
        (
            (
                "$ curl -v https://nexus.acme.dev/repository/maven-releases/\n> GET /repository/maven-releases/ HTTP/1.1\n> Host: nexus.acme.dev\n> Authorization: Basic ZGVwbG95ZXI6TngtUmVsM2FzZS0yMDI2\n> User-Agent: curl/8.5.0\n>\n< HTTP/1.1 200 OK",
                "ZGVwbG95ZXI6TngtUmVsM2FzZS0yMDI2",
            ),
            (
                '$ cat ~/.docker/config.json\n{\n  "auths": {\n    "registry.acme.dev": {\n      "auth": "Y2ktcm9ib3Q6Umc3a1B6MlFtOVZ3WHQ0TA=="\n    }\n  },\n  "credsStore": ""\n}',
                "Y2ktcm9ib3Q6Umc3a1B6MlFtOVZ3WHQ0TA==",
            ),
            (
                "# .npmrc (legacy Nexus, needs always-auth)\nregistry=https://nexus.acme.dev/repository/npm-group/\n_auth=bnBtLWNpOkt0OCF2dzJMcQ==\nalways-auth=true",
                "bnBtLWNpOkt0OCF2dzJMcQ==",
            ),
        ),
    ),
    "join-tokens-14": (
        "A",
        (
            (
                "Then you can join any number of worker nodes by running the following on each as root:\n\nkubeadm join 10.0.0.10:6443 --token 9a08jv.c0izixklcxtmnze7 \\\n\t--discovery-token-ca-cert-hash sha256:b27399ff85066befa08f94ca60484541f1c1f8464ecedd25c14971421931646a",
                "9a08jv.c0izixklcxtmnze7",
            ),
            (
                "$ docker swarm join-token worker\nTo add a worker to this swarm, run the following command:\n\n    docker swarm join --token SWMTKN-1-vdov2ne2dto8kse9t1958kl66t3137l134eaui3uxhqkw7m2wr-z48d4p1eusq4h3a91kg2qywrb 10.0.0.10:2377",
                "SWMTKN-1-vdov2ne2dto8kse9t1958kl66t3137l134eaui3uxhqkw7m2wr-z48d4p1eusq4h3a91kg2qywrb",
            ),
            (
                "$ sudo cat /var/lib/rancher/k3s/server/node-token\nK1030ec3bc8cc7999b581fd45562fc44167be2b54e5efe818a9f3c72a93526e18bc::server:35f00a0524242c1f492417c8ba02ce69",
                "K1030ec3bc8cc7999b581fd45562fc44167be2b54e5efe818a9f3c72a93526e18bc::server:35f00a0524242c1f492417c8ba02ce69",
            ),
        ),
    ),
    "url-signatures-14": (
        "A",
        (
            (
                "DISCORD_WEBHOOK=https://discord.com/api/webhooks/1314159265358979323/AseIiz84xmqhHOi0el9B6LHZhqCM_9Urw7D5OBkj6gCpufMs_IAL8gFrhikMVnheujN6\nDISCORD_USERNAME=release-bot",
                "AseIiz84xmqhHOi0el9B6LHZhqCM_9Urw7D5OBkj6gCpufMs_IAL8gFrhikMVnheujN6",
            ),
            (
                "$ azcopy copy ./dist 'https://acmestatic.blob.core.windows.net/$web?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T23:59:59Z&st=2026-12-05T09:00:00Z&spr=https&sig=nzncFZFzBUlnyvKpdT6UqoAbav9sbK6%2BvXPYTJJIKbk%3D' --recursive",
                "nzncFZFzBUlnyvKpdT6UqoAbav9sbK6%2BvXPYTJJIKbk%3D",
            ),
            (
                "the Teams alert flow is triggered by POSTing to https://prod-42.westeurope.logic.azure.com:443/workflows/f73c5b7e7de67a9db5634b338af17113/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=QGHcAgkLccuTIR35HhYja7AxS-ryuecfL0Qs0HdEzLd",
                "QGHcAgkLccuTIR35HhYja7AxS-ryuecfL0Qs0HdEzLd",
            ),
        ),
    ),
    "cookies-14": (
        "A",
        (
            (
                "GET /admin/jobs HTTP/1.1\nHost: queue.acme.dev\nCookie: theme=dark; connect.sid=s%3AqsQexyo_Vyz7WSLrdTSeagz40THgdsYe.gJT8BUoq2aTQffrIo%2BadhhTK1kL3LSa8NtUQZgFiQdA\nAccept: application/json",
                "s%3AqsQexyo_Vyz7WSLrdTSeagz40THgdsYe.gJT8BUoq2aTQffrIo%2BadhhTK1kL3LSa8NtUQZgFiQdA",
            ),
            (
                "$ curl 'https://shop.acme.dev/admin/orders.json' -H 'Cookie: locale=de; _shop_session=wEtgyVePn%2FVmUUQf7KfLLu4051rN65h3zaFobyfpgquCGhWPJSWOUagnCRtjjn8JMlXZJtNXxO6sdyS3JpYOsoXGGAjCT1GWQpyoptV47OQwC%2FyVh1pj1knntoU2w8dLRLpA4muOoTwKfSr0FPyMI9dRwwksPBck--VETlWVgN3%2BDiPqcQ--WbXC64Yc8lquMfaPvzm%2F1Q%3D%3D'",
                "wEtgyVePn%2FVmUUQf7KfLLu4051rN65h3zaFobyfpgquCGhWPJSWOUagnCRtjjn8JMlXZJtNXxO6sdyS3JpYOsoXGGAjCT1GWQpyoptV47OQwC%2FyVh1pj1knntoU2w8dLRLpA4muOoTwKfSr0FPyMI9dRwwksPBck--VETlWVgN3%2BDiPqcQ--WbXC64Yc8lquMfaPvzm%2F1Q%3D%3D",
            ),
            (
                "Application → Cookies → https://app.acme.dev\nName      laravel_session\nValue     eyJpdiI6IjV1MnRPVEJhRnQ1NkNZY3V2N0cxMnc9PSIsInZhbHVlIjoiS3NWYzdBMWErdmpCSXVzcFF3L1RIN0EvVk8rZ2RielhWSGszdnhvSTFFVHAzV3VEa2FjTEVBOFgvOVk0SlZRTSt0a01oZEJmWFE1b3I2NDJHSzY4V1pWRjhJclBuNFNZNXQ5ZW94Qk4zOXJxUDUyQTlMcnR6cHJQRUpabDRiOTIiLCJtYWMiOiI2MGRkMjlkODQ2ZGI0MWNlNjkxNTQ2OTExZWUyNDM5NGQyMjliMWNhODUzN2JhMjczODMxM2U3NDkyZjczMGZjIiwidGFnIjoiIn0%3D\nDomain    app.acme.dev\nPath      /\nHttpOnly  ✓\nSameSite  Lax",
                "eyJpdiI6IjV1MnRPVEJhRnQ1NkNZY3V2N0cxMnc9PSIsInZhbHVlIjoiS3NWYzdBMWErdmpCSXVzcFF3L1RIN0EvVk8rZ2RielhWSGszdnhvSTFFVHAzV3VEa2FjTEVBOFgvOVk0SlZRTSt0a01oZEJmWFE1b3I2NDJHSzY4V1pWRjhJclBuNFNZNXQ5ZW94Qk4zOXJxUDUyQTlMcnR6cHJQRUpabDRiOTIiLCJtYWMiOiI2MGRkMjlkODQ2ZGI0MWNlNjkxNTQ2OTExZWUyNDM5NGQyMjliMWNhODUzN2JhMjczODMxM2U3NDkyZjczMGZjIiwidGFnIjoiIn0%3D",
            ),
        ),
    ),
    "syntax-punct-14": (
        "A",
        (
            ('# ~/.my.cnf\n[client]\nuser = backup\npassword = "Tq;4#hV=x!9"\nhost = db.internal', "Tq;4#hV=x!9"),
            ("$ redis-cli -h cache.internal -a 'K&9>w|Rz`q(2' --no-auth-warning ping\nPONG", "K&9>w|Rz`q(2"),
            (
                'smtp:\n  host: smtp.acme.dev\n  port: 587\n  user: reports\n  password: "{7]Lm: x,Qp}&#2"',
                "{7]Lm: x,Qp}&#2",
            ),
        ),
    ),
    "connstr-odd-14": (
        "A",
        (
            (
                "$ sqlplus 'scott/\"Ti9#ger!x\"@//ora01.acme.lan:1521/ORCLPDB1'\n\nConnected to:\nOracle Database 19c Enterprise Edition Release 19.0.0.0.0",
                "Ti9#ger!x",
            ),
            (
                "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql02,1433;Database=Billing;Uid=billing_app;Pwd={Hx7;q}}R=2m};Encrypt=yes;TrustServerCertificate=no;",
                "Hx7;q}}R=2m",
            ),
            (
                "REDIS_URL=rediss://:qIpxD6qgrUFE9Z64BpMFThz0tk7aRt2x@eu1-careful-gull-38112.upstash.io:38112",
                "qIpxD6qgrUFE9Z64BpMFThz0tk7aRt2x",
            ),
        ),
    ),
    "google-oauth-14": (
        "A",
        (
            (
                '{"installed":{"client_id":"784512930147-pzly9vx3nzsj3p6jppshq2sfgapr4pol.apps.googleusercontent.com","project_id":"acme-sheets-sync","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","client_secret":"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","redirect_uris":["http://localhost"]}}',
                "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",
            ),
            (
                '$ cat ~/.config/gcloud/application_default_credentials.json\n{\n  "account": "",\n  "client_id": "764086051850-6qr4p6gpi6hn506pt8ejuq83di341hur.apps.googleusercontent.com",\n  "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty",\n  "quota_project_id": "acme-data-417",\n  "refresh_token": "1//0xwUlRW7T6qxRMsmIS4Qoxqh3Z81zbABNkiK2RXVJ4j3huVQ_biSbA3chRPGpJgMJouM_4_1tgUp1m8NIv0-Q_X7Ql-cioys8VcG",\n  "type": "authorized_user"\n}',
                "1//0xwUlRW7T6qxRMsmIS4Qoxqh3Z81zbABNkiK2RXVJ4j3huVQ_biSbA3chRPGpJgMJouM_4_1tgUp1m8NIv0-Q_X7Ql-cioys8VcG",
            ),
            (
                '$ curl -s -H "Authorization: Bearer ya29.a0AeDClZIcdEam46AITChpqR_H-m4lGHmRGeFTCQ0FlRtIHqHRLBMJJYMpWAunTBLtkXU7S8_DyB_wxlXe6A2s6VVutLFDEgTfv_T5MC_lSqGE4Agn3nwUmgK8OEX4VLkFexwzNDRvU_AmglbFtZ5Lzsuk8e8Xrpu38St-540175" "https://www.googleapis.com/drive/v3/files?pageSize=5"',
                "ya29.a0AeDClZIcdEam46AITChpqR_H-m4lGHmRGeFTCQ0FlRtIHqHRLBMJJYMpWAunTBLtkXU7S8_DyB_wxlXe6A2s6VVutLFDEgTfv_T5MC_lSqGE4Agn3nwUmgK8OEX4VLkFexwzNDRvU_AmglbFtZ5Lzsuk8e8Xrpu38St-540175",
            ),
        ),
    ),
    "vendor-14a": (
        "A",
        (
            (
                "$ postman login --with-api-key PMAK-a7b0a565c8ff8ff8a563d762-47b58a3a7100058d72a1c49672498989b4\nLogged in successfully.",
                "PMAK-a7b0a565c8ff8ff8a563d762-47b58a3a7100058d72a1c49672498989b4",
            ),
            (
                "SQUARE_APPLICATION_ID=sq0idp-q-RbApxK-ZhF8dpPsg0C48\nSQUARE_APPLICATION_SECRET=sq0csp-U9k63C4YRcc6lH7J3v72vA4Sjd8qA5gAz5ae7R0VxqC\nSQUARE_ENVIRONMENT=production",
                "sq0csp-U9k63C4YRcc6lH7J3v72vA4Sjd8qA5gAz5ae7R0VxqC",
            ),
            (
                'app = App(token=os.environ["SLACK_BOT_TOKEN"])\n\nif __name__ == "__main__":\n    SocketModeHandler(app, "xapp-1-A072BLUFWGO-7694876953356-37908a20def39349f91ec72e28412296818eb49750bc04f5d7c1546ee48fdd35").start()',
                "xapp-1-A072BLUFWGO-7694876953356-37908a20def39349f91ec72e28412296818eb49750bc04f5d7c1546ee48fdd35",
            ),
        ),
    ),
    "vendor-14b": (
        "A",
        (
            (
                "- name: Load secrets from 1Password\n  uses: 1password/load-secrets-action@v2\n  env:\n    OP_SERVICE_ACCOUNT_TOKEN: ops_eyJzaWduSW5BZGRyZXNzIjoiYWNtZS4xcGFzc3dvcmQuY29tIiwidXNlckF1dGgiOnsibWV0aG9kIjoiU1JQZy00MDk2IiwiYWxnIjoiUEJFUzJnLUhTMjU2IiwiaXRlcmF0aW9ucyI6NjUwMDAwLCJzYWx0IjoiODUta0pVNkpqX09EbFEzX1VSSjBndiJ9LCJlbWFpbCI6ImNpLXl0cGNvdXNuZHBudEAxcGFzc3dvcmRzZXJ2aWNlYWNjb3VudHMuY29tIiwic3JwWCI6IjYyOWE5ZWU4NjQyOGViNjY1NjU1ODQ2ZTJjYWQwM2Q4OGNkODNkOWYxMGUxNTc3NWYxNTQ1Yzg4ODhiYzgxM2EiLCJtdWsiOnsiYWxnIjoiQTI1NkdDTSIsImV4dCI6dHJ1ZSwiayI6ImhxWjQ0eE9IZ1JfZGs0dmdjOFFRZVVJb3hVYUV4enFfZXJ4b2w1ZHdRWGciLCJrZXlfb3BzIjpbImVuY3J5cHQiLCJkZWNyeXB0Il0sImt0eSI6Im9jdCIsImtpZCI6Im1wIn0sInNlY3JldEtleSI6IkEzLURBSERYUy1QWDBINy1VSDFIVy1HTUlTSS1FTDhVQS1BRzgxQyIsInRocm90dGxlU2VjcmV0Ijp7InNlZWQiOiJjMzIxYzQ1ZjhjMGYzZDAyZWYxN2NmNDliZThlOTc0ZWM4NzNiNzI0NWQ1ZjE1OGQ2ZWJhOTI5NmZiOWQwMzYxIiwidXVpZCI6IjZJUVJLVUVEREJXT0ZJWklBTlJYTVhFSDhLIn0sImRldmljZVV1aWQiOiJvMzV6Mmk0YXZoMzhtMHM0Nzl6azZiOHdkNSJ9\n    DB_URL: op://ci/shop-db/url",
                "ops_eyJzaWduSW5BZGRyZXNzIjoiYWNtZS4xcGFzc3dvcmQuY29tIiwidXNlckF1dGgiOnsibWV0aG9kIjoiU1JQZy00MDk2IiwiYWxnIjoiUEJFUzJnLUhTMjU2IiwiaXRlcmF0aW9ucyI6NjUwMDAwLCJzYWx0IjoiODUta0pVNkpqX09EbFEzX1VSSjBndiJ9LCJlbWFpbCI6ImNpLXl0cGNvdXNuZHBudEAxcGFzc3dvcmRzZXJ2aWNlYWNjb3VudHMuY29tIiwic3JwWCI6IjYyOWE5ZWU4NjQyOGViNjY1NjU1ODQ2ZTJjYWQwM2Q4OGNkODNkOWYxMGUxNTc3NWYxNTQ1Yzg4ODhiYzgxM2EiLCJtdWsiOnsiYWxnIjoiQTI1NkdDTSIsImV4dCI6dHJ1ZSwiayI6ImhxWjQ0eE9IZ1JfZGs0dmdjOFFRZVVJb3hVYUV4enFfZXJ4b2w1ZHdRWGciLCJrZXlfb3BzIjpbImVuY3J5cHQiLCJkZWNyeXB0Il0sImt0eSI6Im9jdCIsImtpZCI6Im1wIn0sInNlY3JldEtleSI6IkEzLURBSERYUy1QWDBINy1VSDFIVy1HTUlTSS1FTDhVQS1BRzgxQyIsInRocm90dGxlU2VjcmV0Ijp7InNlZWQiOiJjMzIxYzQ1ZjhjMGYzZDAyZWYxN2NmNDliZThlOTc0ZWM4NzNiNzI0NWQ1ZjE1OGQ2ZWJhOTI5NmZiOWQwMzYxIiwidXVpZCI6IjZJUVJLVUVEREJXT0ZJWklBTlJYTVhFSDhLIn0sImRldmljZVV1aWQiOiJvMzV6Mmk0YXZoMzhtMHM0Nzl6azZiOHdkNSJ9",
            ),
            (
                'from openai import OpenAI\nclient = OpenAI(base_url="https://integrate.api.nvidia.com/v1", api_key="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")',
                "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",
            ),
            (
                "$ curl -X POST https://api.dropboxapi.com/2/files/list_folder \\\n    --header 'Authorization: Bearer sl.BogF0YryocpS-cG50rGig1FuriX9mp_1_jzo1mXWQ1u6T8I86JqRS1xiRhpImRI-m9fPwQkN5Nh4LtNssWHgHqtPprq4dPPB2dwv7cWBt1_h2066-zdhFSMOlVjqXyOU8lklDbd' \\\n    --header 'Content-Type: application/json' --data '{\"path\": \"/exports\"}'",
                "sl.BogF0YryocpS-cG50rGig1FuriX9mp_1_jzo1mXWQ1u6T8I86JqRS1xiRhpImRI-m9fPwQkN5Nh4LtNssWHgHqtPprq4dPPB2dwv7cWBt1_h2066-zdhFSMOlVjqXyOU8lklDbd",
            ),
        ),
    ),
    "vendor-14c": (
        "A",
        (
            (
                '[[runners]]\n  name = "build-7"\n  url = "https://gitlab.acme.dev"\n  id = 412\n  token = "glrt-jd6W2Qapx_nLFBmJ_xhW"\n  executor = "docker"',
                "glrt-jd6W2Qapx_nLFBmJ_xhW",
            ),
            (
                "$ echo dckr_pat__WKZGoUwbigKx2Y3Zo1Vvhy3ci3 | docker login -u acmeci --password-stdin\nLogin Succeeded",
                "dckr_pat__WKZGoUwbigKx2Y3Zo1Vvhy3ci3",
            ),
            (
                "$ dotnet nuget push bin/Release/Acme.Core.3.2.0.nupkg --api-key oy2f0f2vsld92gjtupk4wy54lvy1m1s8y66dzyxy6qw8px --source https://api.nuget.org/v3/index.json",
                "oy2f0f2vsld92gjtupk4wy54lvy1m1s8y66dzyxy6qw8px",
            ),
        ),
    ),
    "cloud-pairs-14": (
        "A",
        (
            (
                "$ aliyun configure --mode AK --profile prod\nConfiguring profile 'prod' in 'AK' authenticate mode...\nAccess Key Id []: LTAI5tIvvhKib6Kc2c8Zyomb\nAccess Key Secret []: XUA7Xi3yF9ljtvDEcnwDhAn6yjl4Us\nDefault Region Id []: eu-central-1",
                "XUA7Xi3yF9ljtvDEcnwDhAn6yjl4Us",
            ),
            (
                "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeexports;AccountKey=i+dwEtI0kPoEsE8nZ1i3uV7gbHXl9ajovu0R6Tezxi3s00EmFBij4Il19zCkuIqxDHiF/9h09ro1D8rmcsfa+Q==;EndpointSuffix=core.windows.net",
                "i+dwEtI0kPoEsE8nZ1i3uV7gbHXl9ajovu0R6Tezxi3s00EmFBij4Il19zCkuIqxDHiF/9h09ro1D8rmcsfa+Q==",
            ),
            (
                '$ cat ~/.tccli/default.credential\n{\n    "secretId": "AKIDVpHfFKChBsGd1tf9tPHAPBEBksu9zz5i",\n    "secretKey": "CKTXOvGQJAsX0s4mOVSC323gNyHKZIxm"\n}',
                "CKTXOvGQJAsX0s4mOVSC323gNyHKZIxm",
            ),
        ),
    ),
    "lang-lit-14a": (
        "A",
        (
            ("Serverning yangi paroli: Samarqand_1991! — hech kimga aytmang, iltimos", "Samarqand_1991!"),  # Uzbek
            ("Igama lokugqitha elitsha le-Wi-Fi yeofisi ngu: iKapa#Ntaba7", "iKapa#Ntaba7"),  # Xhosa
            ("ސާވަރުގެ އައު ޕާސްވޯޑަކީ Hulhumale.Raa42 — މިއީ ސިއްރެއް", "Hulhumale.Raa42"),  # Dhivehi
        ),
    ),
    "among-values-14a": (
        "A",
        (
            (
                '$ terraform output\ndb_endpoint = "shop-prod.c9xk2lq0vz1m.eu-central-1.rds.amazonaws.com"\ndb_name = "shop"\ndb_port = 5432\ndb_username = "shop_admin"\ndb_password = <sensitive>\n$ terraform output -raw db_password; echo\nW8c!pZr2-Lq0xNe7',
                "W8c!pZr2-Lq0xNe7",
            ),
            (
                "INC-48213 — new laptop for M. Okafor\nSerial: PF3KX9Q2, asset tag ACME-0042187, MAC 3c:22:fb:91:0e:7d\nBIOS supervisor password: 7Rb-Qx4!nM\nIntune device id: bc8a2261-27b0-4005-989f-b8c9a095e348\nOrder ref PO-2026-11-0934, delivered 2026-12-04",
                "7Rb-Qx4!nM",
            ),
            (
                '$ docker inspect billing-db --format \'{{json .Config.Env}}\' | jq .\n[\n  "POSTGRES_USER=billing",\n  "POSTGRES_PASSWORD=Vn2#kQ8wLz",\n  "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",\n  "GOSU_VERSION=1.17",\n  "PG_MAJOR=16",\n  "PG_VERSION=16.6-1.pgdg120+1",\n  "PGDATA=/var/lib/postgresql/data"\n]',
                "Vn2#kQ8wLz",
            ),
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "layout-slip-14": (
        "B",
        (
            (
                "пароль от роутера набран в английской раскладке: ghbdtnhjenth2026 (это «приветроутер»)",
                "ghbdtnhjenth2026",
            ),
            ("회사 와이파이 비번: dkssudgktpdy!23 (한영키 안 누르고 친 거 맞음)", "dkssudgktpdy!23"),
            ("הסיסמה של ה-VPN היא akuoakuo!77 (שלום שלום במקלדת אנגלית)", "akuoakuo!77"),
        ),
    ),
    "pinyin-numbers-14": (
        "B",
        (
            ("测试库的密码是 woaini1314，别发到群里", "woaini1314"),
            (
                "$ mysql -h 10.2.0.8 -uroot -pZhangwei@19910823 -e 'show databases'\nmysql: [Warning] Using a password on the command line interface can be insecure.",
                "Zhangwei@19910823",
            ),
            ("服务器 root 密码：Lao.Wang.888，改完记得在群里说一声", "Lao.Wang.888"),
        ),
    ),
    "dates-phones-14": (
        "B",
        (
            ("guest wifi password is just my mobile number: 07700900461", "07700900461"),
            ("ZIP with the invoices is encrypted, password is the delivery date 05.12.2026", "05.12.2026"),
            ("Kombination für den Tresor im Serverraum: 19-88-03-15 (Geburtstag vom Chef, ja wirklich)", "19-88-03-15"),
        ),
    ),
    "emoji-14": (
        "B",
        (
            ("new vault master password (yes, with the emoji): 🦊Fuchsbau-9🦊", "🦊Fuchsbau-9🦊"),
            ('# .env.local\nADMIN_PASSWORD="☕️coffee4ever☕️"\nADMIN_EMAIL=barista@acme.dev', "☕️coffee4ever☕️"),
            ("my old discord alt's pw was sk8r🛹boi2007, can you log in and grab the server export?", "sk8r🛹boi2007"),
        ),
    ),
    "sentences-14": (
        "B",
        (
            ("wp admin for the dog-shelter site: user `rex_admin`, pass `I<3MyDog,Rex!`", "I<3MyDog,Rex!"),
            (
                "$ sudo cryptsetup luksAddKey /dev/nvme0n1p3\nEnter any existing passphrase: Don't.Panic-42!\nEnter new passphrase for key slot:",
                "Don't.Panic-42!",
            ),
            ('DEPLOY_KEY_PASSPHRASE="(Tea)+[Biscuits]=Happy;"', "(Tea)+[Biscuits]=Happy;"),
        ),
    ),
    "wallet-keys-14": (
        "B",
        (
            (
                "# .env\nDEPLOYER_ADDRESS=0x7f3690afa7775845b52114441d51f365108af355\nPRIVATE_KEY=0x87b5d0c3c410c24c37e67601580b0074b527806a05aaec17011655d525d3d5af\nETHERSCAN_URL=https://sepolia.etherscan.io",
                "0x87b5d0c3c410c24c37e67601580b0074b527806a05aaec17011655d525d3d5af",
            ),
            (
                "$ cat ~/.config/solana/id.json\n[22,251,119,28,126,240,167,144,116,49,70,205,164,210,176,80,8,118,212,50,146,97,121,222,140,198,240,50,30,102,181,153,33,102,86,181,69,144,7,135,153,203,132,108,85,3,149,187,159,3,74,165,18,49,234,68,21,21,52,38,155,166,216,66]",
                "[22,251,119,28,126,240,167,144,116,49,70,205,164,210,176,80,8,118,212,50,146,97,121,222,140,198,240,50,30,102,181,153,33,102,86,181,69,144,7,135,153,203,132,108,85,3,149,187,159,3,74,165,18,49,234,68,21,21,52,38,155,166,216,66]",
            ),
            (
                '$ bitcoin-cli -rpcwallet=legacy importprivkey L4BAcFYduypwZCFPJ1gpEuRgAys5fzvhjjSfY4FGUuC3c39NnaAK "cold-2" false\n$ bitcoin-cli -rpcwallet=legacy rescanblockchain 850000',
                "L4BAcFYduypwZCFPJ1gpEuRgAys5fzvhjjSfY4FGUuC3c39NnaAK",
            ),
        ),
    ),
    "recovery-blocks-14": (
        "B",
        (
            (
                "$ cat ~/Downloads/github-recovery-codes.txt\n66e9b-0f07a\n296a8-b97c3\ned6ce-ca9b5\nb3a80-b7698\n67725-75dba\n7a187-abb1c\na06c4-94184\n95707-8e3bf\nf58de-d1f46\n79b9f-70184\neeef1-edf78\nd93c3-bb366\ncd497-7ac80\n11d4f-9e9b2\n879a7-fdb78\n07db3-52a80\n\nPut these in a safe spot.",
                "66e9b-0f07a\n296a8-b97c3\ned6ce-ca9b5\nb3a80-b7698\n67725-75dba\n7a187-abb1c\na06c4-94184\n95707-8e3bf\nf58de-d1f46\n79b9f-70184\neeef1-edf78\nd93c3-bb366\ncd497-7ac80\n11d4f-9e9b2\n879a7-fdb78\n07db3-52a80",
            ),
            (
                "BACKUP VERIFICATION CODES\nli.wei@acme.dev\n\n1822 4977    3072 1394\n0348 1009    9852 4356\n5711 6519    8208 1144\n2760 8721    4094 2202\n0074 9856    7884 6536\n\n(Each code can be used once.)",
                "1822 4977    3072 1394\n0348 1009    9852 4356\n5711 6519    8208 1144\n2760 8721    4094 2202\n0074 9856    7884 6536",
            ),
            (
                "$ sudo systemd-cryptenroll /dev/nvme0n1p3 --recovery-key\n🔐 Please enter current passphrase for disk /dev/nvme0n1p3: ********\nA secret recovery key has been generated for this volume:\n\n    🔐 fekgdfle-eivdrnei-bvbitchk-ngfujftf-judcdrnc-btcnchug-gtnkfehh-ctrrjneg\n\nPlease save this secret recovery key at a secure location.",
                "fekgdfle-eivdrnei-bvbitchk-ngfujftf-judcdrnc-btcnchug-gtnkfehh-ctrrjneg",
            ),
        ),
    ),
    "kube-tokens-14": (
        "B",
        (
            (
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: pg-app\n  namespace: shop\ntype: kubernetes.io/basic-auth\ndata:\n  username: YXBw\n  password: UXo3LXZCMm1YciE5",
                "UXo3LXZCMm1YciE5",
            ),
            (
                '$ oc login --token=sha256~_7xpPQnc-B4gyYKlA0Dd_SUs5RfWxGa3LnbJ6cFbmxD --server=https://api.ocp.acme.lan:6443\nLogged into "https://api.ocp.acme.lan:6443" as "li.wei" using the token provided.',
                "sha256~_7xpPQnc-B4gyYKlA0Dd_SUs5RfWxGa3LnbJ6cFbmxD",
            ),
            (
                "users:\n- name: c-m-7xk2p\n  user:\n    token: kubeconfig-user-ekoik:bc6uch3jpvswf7qj5dczj7az4xx11xp5euia6o8ufsimb8o4yh9dbt\ncontexts:\n- name: c-m-7xk2p\n  context:\n    cluster: c-m-7xk2p\n    user: c-m-7xk2p",
                "kubeconfig-user-ekoik:bc6uch3jpvswf7qj5dczj7az4xx11xp5euia6o8ufsimb8o4yh9dbt",
            ),
        ),
    ),
    "vendor-14d": (
        "B",
        (
            (
                "$ NETLIFY_AUTH_TOKEN=nfp_jMjQROM68m8gyb3XMoBgAjvZ22ptM8gH4AWda645 netlify deploy --prod --dir dist\nDeploy path: /home/li/site/dist",
                "nfp_jMjQROM68m8gyb3XMoBgAjvZ22ptM8gH4AWda645",
            ),
            (
                "$ supabase login --token sbp_51db863a0da9344fda3ca0da64b5940aee6beb22\nYou are now logged in. Happy coding!",
                "sbp_51db863a0da9344fda3ca0da64b5940aee6beb22",
            ),
            (
                "- run: npx vercel deploy --prebuilt --prod --token=NntL3LrKlHT2fW5gKqGotAWl --scope acme",
                "NntL3LrKlHT2fW5gKqGotAWl",
            ),
        ),
    ),
    "vendor-14e": (
        "B",
        (
            (
                "$ git clone https://li-wei:ATBBvJIniD04WMLj2mCy1zZUURmCTGsBMOtnEAAF7880@bitbucket.org/acme/legacy-portal.git",
                "ATBBvJIniD04WMLj2mCy1zZUURmCTGsBMOtnEAAF7880",
            ),
            (
                "$ contentful login --management-token CFPAT-ylqGUT0fnTF93RGglPj6hN4wVk_qSVCU26yHKEJZmqw\nGreat! You've successfully logged in!",
                "CFPAT-ylqGUT0fnTF93RGglPj6hN4wVk_qSVCU26yHKEJZmqw",
            ),
            (
                "$ jf c add acme --url https://acme.jfrog.io --access-token cmVmdGtuOjAxOjE3OTY0NTc2MDA6VFN3alBHbnE0U3dVOU1IWjcyb1RYc01jZTRZZlg1NzlJ --interactive=false",
                "cmVmdGtuOjAxOjE3OTY0NTc2MDA6VFN3alBHbnE0U3dVOU1IWjcyb1RYc01jZTRZZlg1NzlJ",
            ),
        ),
    ),
    "vendor-14f": (
        "B",
        (
            (
                "$ curl -G 'https://graph.facebook.com/v21.0/me/accounts' -d 'access_token=EAAG2dfFq2wdEF6kRgWaEragbFCXLCHfUxXhJn6N8cPcF2JsgcgQcP32rUEXaq1RGpjJ9iTMlV4YsCMWeIDZrI4QJgioU81nQPmkdW0ulcEH2vki3pNGbCLVO3sh2I1qraVL5ZlYyc9OVTb6v7HlBSubIobhoknvrkEfyildxm09p1phgqUl'",
                "EAAG2dfFq2wdEF6kRgWaEragbFCXLCHfUxXhJn6N8cPcF2JsgcgQcP32rUEXaq1RGpjJ9iTMlV4YsCMWeIDZrI4QJgioU81nQPmkdW0ulcEH2vki3pNGbCLVO3sh2I1qraVL5ZlYyc9OVTb6v7HlBSubIobhoknvrkEfyildxm09p1phgqUl",
            ),
            (
                "# old FCM HTTP API, still used by the Cordova app\nFCM_SERVER_KEY=AAAAssx3lcb:APA91bhfyUAOQ2F4q5Vyg_8jdFH_WskcyxdL5YClCxch4JlYyfU-jSUryoLq3A-naARE9XW9T_rSzs8g_EbF7wrfFG15OZL1Pr6LkRlTZfSqNYo5MLPMlfq65l9BSuLUUpQX-Qq70o0t",
                "AAAAssx3lcb:APA91bhfyUAOQ2F4q5Vyg_8jdFH_WskcyxdL5YClCxch4JlYyfU-jSUryoLq3A-naARE9XW9T_rSzs8g_EbF7wrfFG15OZL1Pr6LkRlTZfSqNYo5MLPMlfq65l9BSuLUUpQX-Qq70o0t",
            ),
            (
                "TWILIO_ACCOUNT_SID=ACd927ad47a896f611f67f7a46ebeed66c\nTWILIO_AUTH_TOKEN=72b0da520f18643751f7035ada59e068\nTWILIO_FROM=+15005550006",
                "72b0da520f18643751f7035ada59e068",
            ),
        ),
    ),
    "escaping-14": (
        "B",
        (
            (
                "# src/main/resources/db.properties\ndb.user=shop\ndb.password=p\\=q\\:r\\!9Lm\ndb.url=jdbc:mariadb://db:3306/shop",
                "p\\=q\\:r\\!9Lm",
            ),
            (
                'services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: "Tr$$ffic9!"',
                "Tr$$ffic9!",
            ),
            ('[Service]\nEnvironment="API_PASS=50%%off-Friday"\nExecStart=/usr/local/bin/shop-sync', "50%%off-Friday"),
        ),
    ),
    "lang-lit-14b": (
        "B",
        (
            (
                "Tembung sandhi anyar kanggo server: Merapi.Kopi.88, aja dikandhakake sapa-sapa",
                "Merapi.Kopi.88",
            ),  # Javanese
            ("Baatu jàll bu bees bi ci server bi: Ndakaru-Teranga5", "Ndakaru-Teranga5"),  # Wolof
            ("O le upu faalilolilo fou mo le server: Apia!Talofa12", "Apia!Talofa12"),  # Samoan
        ),
    ),
    "among-values-14b": (
        "B",
        (
            (
                "build 4.12.0 (versionCode 41200) is in internal testing, review id 7712938. upload keystore password is Kestrel#Upload77, cert SHA-1 is 5E:8F:16:06:2E:A3:CD:2C:4A:0D:54:78:76:BA:A6:F3:8C:AB:F6:25",
                "Kestrel#Upload77",
            ),
            (
                "Welcome to Acme, Ana!\nAccount: ana.silva@acme.dev\nEmployee no.: 004412\nCost centre: 4410-DE\nTemporary password: Lime-Otter-6 (you will be asked to change it)\nHelpdesk: +49 30 901820, ext. 12",
                "Lime-Otter-6",
            ),
            (
                '{\n  "id": "159a7091-5baa-440a-8318-6a0801bfa536",\n  "name": "staging",\n  "values": [\n    {"key": "baseUrl", "value": "https://staging.acme.dev", "enabled": true},\n    {"key": "tenantId", "value": "7803b559-b05c-435d-a9ea-cb47694438ab", "enabled": true},\n    {"key": "apiKey", "value": "stg_9f2Kx0QwLm3Rb7Zt", "type": "secret", "enabled": true}\n  ]\n}',
                "stg_9f2Kx0QwLm3Rb7Zt",
            ),
        ),
    ),
    "nonlatin-values-14": (
        "B",
        (
            ("新的 NAS 管理员密码：长城长又长2026，只有运维组知道", "长城长又长2026"),
            ("テスト環境の管理者パスワードは「さくら咲く-2026」です。本番とは別です。", "さくら咲く-2026"),
            ("كلمة مرور شبكة المكتب الجديدة: قهوة_الصباح٤٤ — لا ترسلها بالبريد", "قهوة_الصباح٤٤"),
        ),
    ),
    "disk-recovery-14": (
        "B",
        (
            (
                "BitLocker recovery key for LT-0412 (Key ID: 4F1C0A9E):\n659945-674883-092796-600633-693616-628727-357181-122694",
                "659945-674883-092796-600633-693616-628727-357181-122694",
            ),
            (
                "$ sudo fdesetup changerecovery -personal\nEnter the user name:li\nEnter the password for user 'li':\nNew recovery key = 'Q7KX-9MZP-2LWR-T4HB-8NCV-J3YD'",
                "Q7KX-9MZP-2LWR-T4HB-8NCV-J3YD",
            ),
            (
                "VeraCrypt container backup.hc → password: Stille Nacht über Kiel 1998, PIM 485 (it won't mount without the PIM)",
                "Stille Nacht über Kiel 1998",
            ),
        ),
    ),
    "wifi-14": (
        "B",
        (
            (
                "QR payload for the guest sign at reception:\nWIFI:T:WPA;S:Acme-Guest;P:Kaffee&Kuchen!24;H:false;;",
                "Kaffee&Kuchen!24",
            ),
            (
                "$ nmcli dev wifi connect 'Lab-5G' password 'oscilloscope-42-x'\nDevice 'wlp2s0' successfully activated with 'e3b1c2a4-5d6f-4a7b-8c9d-0e1f2a3b4c5d'.",
                "oscilloscope-42-x",
            ),
            (
                'PS> netsh wlan show profile name="HomeNet" key=clear\n\nSecurity settings\n-----------------\n    Authentication         : WPA2-Personal\n    Cipher                 : CCMP\n    Security key           : Present\n    Key Content            : BlueHeron!Lake19\n',
                "BlueHeron!Lake19",
            ),
        ),
    ),
}

BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "pipelines-benign-14": (
        "A",
        (
            "$ airflow connections get warehouse_pg -o yaml\n- conn_id: warehouse_pg\n  conn_type: postgres\n  host: dw.internal\n  login: etl\n  password: '***'\n  port: 5432",
            "    dev:\n      type: snowflake\n      account: xy12345.eu-central-1\n      user: DBT_LI\n      password: \"{{ env_var('DBT_SNOWFLAKE_PASSWORD') }}\"\n      role: TRANSFORMER",
            '"connection.password": "${file:/opt/connect/secrets/pg.properties:password}",\n"config.providers": "file",\n"config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider"',
        ),
    ),
    "search-benign-14": (
        "A",
        (
            '$ curl -s localhost:9200/_cluster/health?pretty\n{\n  "cluster_name" : "docker-cluster",\n  "status" : "green",\n  "number_of_nodes" : 1,\n  "active_shards" : 12\n}',
            '$ curl -s -u "elastic:$ELASTIC_PASSWORD" --cacert config/certs/http_ca.crt https://localhost:9200/_security/_authenticate | jq .username\n"elastic"',
            '{"uid": "{u}", "name": "Default Search API Key", "description": "Use it to search from the frontend", "actions": ["search"], "indexes": ["*"], "expiresAt": null}',
        ),
    ),
    "chatops-benign-14": (
        "A",
        (
            "room_id: !{a14}{a6}:matrix.acme.dev\nevent_id: ${b43}\nsender: @deploybot:acme.dev\norigin_server_ts: 1733393643221",
            "Discord: guild 1314159265358979323, channel {d18}, message {d18} (jump: https://discord.com/channels/1314159265358979323/{d18}/{d18})",
            'Mattermost: post {a24}x2 in ~town-square by @sysadmin, root_id "", reply_count 3',
        ),
    ),
    "dns-records-benign-14": (
        "A",
        (
            'default._domainkey.acme.dev. 3600 IN TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{b64}"',
            "$ dig +short DS acme.dev\n2371 13 2 {H40}{H16}{H4}{H4}",
            '$ dig +short TXT _acme-challenge.acme.dev\n"{b43}"\n$ # propagated, certbot can continue',
        ),
    ),
    "identity-benign-14": (
        "A",
        (
            '{\n  "clientId": "grafana",\n  "enabled": true,\n  "clientAuthenticatorType": "client-secret",\n  "secret": "**********",\n  "redirectUris": ["https://grafana.acme.dev/*"]\n}',
            '$ curl -s https://sso.acme.dev/realms/acme/.well-known/openid-configuration | jq \'{issuer, token_endpoint, jwks_uri}\'\n{\n  "issuer": "https://sso.acme.dev/realms/acme",\n  "token_endpoint": "https://sso.acme.dev/realms/acme/protocol/openid-connect/token",\n  "jwks_uri": "https://sso.acme.dev/realms/acme/protocol/openid-connect/certs"\n}',
            '<md:KeyDescriptor use="signing">\n  <ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIICmzCCAYMCBgGT{b64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>\n</md:KeyDescriptor>',
        ),
    ),
    "virt-benign-14": (
        "A",
        (
            'variable "ssh_password" {\n  type      = string\n  sensitive = true\n}\n\nsource "proxmox-iso" "debian" {\n  ssh_username = "root"\n  ssh_password = var.ssh_password\n}',
            "#cloud-config\nssh_pwauth: false\nusers:\n  - name: ops\n    ssh_authorized_keys:\n      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b43} ops@laptop",
            "$ govc vm.info -r web-01\nName:           web-01\n  UUID:         {u}\n  Guest name:   Ubuntu Linux (64-bit)\n  Memory:       4096MB\n  IP address:   10.0.4.21",
        ),
    ),
    "oldlangs-benign-14": (
        "A",
        (
            "       01 WS-PASSWORD-RULES.\n          05 WS-MIN-LEN     PIC 9(2) VALUE 12.\n          05 WS-MAX-TRIES   PIC 9(1) VALUE 3.\n       PROCEDURE DIVISION.\n           IF WS-INPUT-PASS = SPACES\n              DISPLAY 'PASSWORD REQUIRED'",
            "FDConnection1.Params.UserName := EditUser.Text;\nFDConnection1.Params.Password := EditPassword.Text;\ntry\n  FDConnection1.Connected := True;\nexcept on E: EFDDBEngineException do\n  ShowMessage('Login fehlgeschlagen: ' + E.Message);\nend;",
            "program fetch\n  character(len=256) :: token\n  integer :: stat\n  call get_environment_variable('API_TOKEN', token, status=stat)\n  if (stat /= 0) stop 'API_TOKEN not set'\nend program fetch",
        ),
    ),
    "webserver-benign-14": (
        "A",
        (
            'location /admin/ {\n    auth_basic           "Restricted";\n    auth_basic_user_file /etc/nginx/.htpasswd;\n    proxy_pass           http://127.0.0.1:9000;\n}',
            "$ cat /etc/nginx/.htpasswd\nops:$apr1$3fK9x2Lq${c16}{alnum4}ab\nci:$2y$05${c53}",
            'frontend stats\n    bind :8404\n    stats enable\n    stats uri /stats\n    stats auth "${STATS_USER}:${STATS_PASS}"',
        ),
    ),
    "wallets-benign-14": (
        "A",
        (
            "BIP32 test vector 1, chain m/0H (public):\nxpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw",
            "BIP39 test vector from python-mnemonic's vectors.json, entropy 00000000000000000000000000000000:\nabandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
            '$ bitcoin-cli getnewaddress "" bech32m\nbc1p{b32l}\n$ bitcoin-cli getblockcount\n873412',
        ),
    ),
    "pem-public-14": (
        "A",
        (
            "$ openssl pkey -in server.key -pubout\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{b64}\n-----END PUBLIC KEY-----",
            "$ openssl x509 -in ca.crt -noout -subject -enddate\nsubject=CN = Acme Internal Root CA\nnotAfter=Dec  5 10:14:03 2036 GMT\n$ head -3 ca.crt\n-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIU{b64s}\n{b64s}{b64s}",
            "-----BEGIN CERTIFICATE REQUEST-----\nMIICvDCCAaQCAQAwdzELMAkGA1UEBhMCREUx{b64}\n-----END CERTIFICATE REQUEST-----",
        ),
    ),
    "tool-output-benign-14": (
        "A",
        (
            "jenkins  | *************************************************************\njenkins  | Jenkins initial setup is required. An admin user has been created and a password generated.\njenkins  | It can be found at: /var/jenkins_home/secrets/initialAdminPassword\njenkins  | *************************************************************",
            "$ kubectl -n argocd get secret argocd-initial-admin-secret\nNAME                          TYPE     DATA   AGE\nargocd-initial-admin-secret   Opaque   1      3m12s",
            "$ pwgen --help | head -5\nUsage: pwgen [ OPTIONS ] [ pw_length ] [ num_pw ]\n\nOptions supported by pwgen:\n  -c or --capitalize\n\tInclude at least one capital letter in the password",
        ),
    ),
    "basicauth-benign-14": (
        "A",
        (
            'HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Basic realm="Nexus Repository Manager", charset="UTF-8"\nContent-Length: 0',
            '$ curl -fsS -u "$NEXUS_USER:$NEXUS_PASS" https://nexus.acme.dev/service/rest/v1/status/writable && echo ok',
            "// Basic auth: base64 of \"user:password\"\nconst header = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');",
        ),
    ),
    "cluster-benign-14": (
        "A",
        (
            "$ kubectl get nodes -o wide\nNAME       STATUS   ROLES           AGE   VERSION   INTERNAL-IP\ncp-1       Ready    control-plane   41d   v1.31.3   10.0.0.10\nworker-1   Ready    <none>          41d   v1.31.3   10.0.0.11",
            "$ docker node ls\nID                            HOSTNAME   STATUS    AVAILABILITY   MANAGER STATUS\n{a24}a1 *   mgr-1      Ready     Active         Leader\n{a24}b2     wrk-1      Ready     Active",
            "From the kubeadm docs:\n\n    kubeadm join <control-plane-host>:<control-plane-port> --token <token> --discovery-token-ca-cert-hash sha256:<hash>",
        ),
    ),
    "cookies-benign-14": (
        "A",
        (
            "Set-Cookie: theme=dark; Path=/; Max-Age=31536000; SameSite=Lax\nSet-Cookie: lang=de-DE; Path=/; SameSite=Lax",
            "Cookie: _ga=GA1.1.{d9}.1733393643; _ga_{AK4}{AK4}=GS1.1.1733393643.4.1.1733393700.0.0.0; cookie_consent=%7B%22necessary%22%3Atrue%2C%22analytics%22%3Afalse%7D",
            "app.use(session({\n  secret: process.env.SESSION_SECRET,\n  cookie: { httpOnly: true, secure: true, sameSite: 'lax', maxAge: 86400000 },\n  resave: false,\n}));",
        ),
    ),
    "numbers-benign-14": (
        "A",
        (
            "Example IBAN from the docs: DE89 3704 0044 0532 0130 00 (BIC COBADEFFXXX), use it in the sandbox only",
            "Stripe test cards: 4242 4242 4242 4242 (success), 4000 0000 0000 9995 (insufficient funds); any future expiry, any CVC",
            "ISBN 978-3-16-148410-0, EAN 4006381333931, GTIN-14 10614141000415, support line +1-202-555-0143",
        ),
    ),
    "pgp-public-benign-14": (
        "A",
        (
            "$ git cat-file -p HEAD\ntree {h}\nparent {h}\nauthor Li Wei <li@acme.dev> 1733393643 +0100\ncommitter Li Wei <li@acme.dev> 1733393643 +0100\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQIzBAABCAAdFiEE{b64s}\n {b64}\n -----END PGP SIGNATURE-----\n\nfix: retry on 503",
            "$ gpg --armor --export li@acme.dev\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGdRm3sBEAC{b64}\n=Ab3x\n-----END PGP PUBLIC KEY BLOCK-----",
            "$ gpg --list-secret-keys --keyid-format=long\nsec   ed25519/9F2C4A17E0B3D855 2026-12-05 [SC]\n      {H40}\nuid                 [ultimate] Li Wei <li@acme.dev>\nssb   cv25519/1B7E2D90C4F3A612 2026-12-05 [E]",
        ),
    ),
    "sql-roles-benign-14": (
        "A",
        (
            "CREATE EXTENSION IF NOT EXISTS pgcrypto;\nUPDATE users SET password_hash = crypt(:new_password, gen_salt('bf', 12)) WHERE id = :id;",
            "ALTER ROLE reporting VALID UNTIL '2027-01-01';\nALTER ROLE legacy_etl PASSWORD NULL;\nREVOKE ALL ON SCHEMA billing FROM legacy_etl;",
            "SELECT rolname, rolcanlogin, rolvaliduntil FROM pg_roles WHERE rolname NOT LIKE 'pg_%';\n  rolname  | rolcanlogin | rolvaliduntil\n-----------+-------------+---------------\n app       | t           |\n reporting | t           | 2027-01-01",
        ),
    ),
    "lang-benign-14a": (
        "A",
        (
            "Серсүзне оныттыгызмы? «Яңадан кую» төймәсенә басыгыз.",  # Tatar
            "Açar sözi azyndan 12 nyşandan ybarat bolmaly.",  # Turkmen
            "Lo senhal es pas corrècte, tornatz ensajar dins 5 minutas.",  # Occitan
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "homeauto-benign-14": (
        "B",
        (
            "mqtt:\n  broker: 10.0.0.20\n  username: !secret mqtt_user\n  password: !secret mqtt_password",
            "Zigbee2MQTT:info  2026-12-05 10:14:03: Device '0x00158d00{h8}' joined\nZigbee2MQTT:info  2026-12-05 10:14:04: Successfully interviewed '0x00158d00{h8}', device has successfully been paired",
            '[{"id":"{h16}","type":"mqtt in","z":"{h16}","name":"hall motion","topic":"zigbee2mqtt/hall_motion","qos":"1","broker":"{h16}","x":140,"y":80,"wires":[["{h16}"]]}]',
        ),
    ),
    "media-benign-14": (
        "B",
        (
            "[Info] RssSyncService: RSS Sync Completed. Reports found: 42, Reports grabbed: 1\n[Info] DownloadService: Report sent to qBittorrent. The.Expanse.S06E01.1080p.WEB.H264 (tvdbid 280619)",
            '<MediaContainer size="1" machineIdentifier="{h}" version="1.41.2.9200-c6bbc1b53"><Directory key="/library/sections" title="library"/></MediaContainer>',
            '$ curl -s http://jellyfin.lan:8096/System/Info/Public\n{"LocalAddress":"http://10.0.0.9:8096","ServerName":"media","Version":"10.10.3","Id":"{h32}","StartupWizardCompleted":true}',
        ),
    ),
    "tests-benign-14": (
        "B",
        (
            "cy.get('#password').type(Cypress.env('ADMIN_PASSWORD'), { log: false });\ncy.contains('button', 'Sign in').click();\ncy.url().should('include', '/dashboard');",
            "const user = { email: faker.internet.email(), password: faker.internet.password({ length: 16 }) };\nawait page.getByLabel('Password').fill(user.password);",
            "FAILED tests/e2e/test_login.py::test_wrong_password - AssertionError: expected 'Invalid email or password' in page text\n    page.fill('#password', 'definitely-not-the-password')",
        ),
    ),
    "r-julia-benign-14": (
        "B",
        (
            'con <- DBI::dbConnect(RPostgres::Postgres(), dbname = "trials", host = "db.lab",\n                      user = Sys.getenv("PGUSER"), password = keyring::key_get("trials-db"))',
            'julia> using SHA; bytes2hex(sha256("hello"))\n"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"',
            '> set.seed(20261205)\n> sample(1e6, 3)\n[1] 482113 901744  17329\n> digest::digest("acme", algo = "md5")\n[1] "{h32}"',
        ),
    ),
    "mail-benign-14": (
        "B",
        (
            'set smtp_pass = "`pass show mail/acme`"\nset imap_pass = "`pass show mail/acme`"',
            'IMAPAccount acme\nHost imap.acme.dev\nUser li@acme.dev\nPassCmd "gpg -q --for-your-eyes-only --no-tty -d ~/.mailpass.gpg"\nSSLType IMAPS',
            "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=acme.dev; s=default;\n\tt=1733393643; bh={k44};\n\th=From:To:Subject:Date:Message-ID;\n\tb={b64}",
        ),
    ),
    "netfs-benign-14": (
        "B",
        (
            "//fs01.acme.lan/projects /mnt/projects cifs credentials=/root/.smbcred,uid=1000,vers=3.0,_netdev 0 0\nUUID={u} /data ext4 defaults,noatime 0 2",
            "$ rclone lsd nas:\n          -1 2026-12-04 21:02:11        -1 photos\n          -1 2026-12-05 09:14:03        -1 scans\n$ rclone config file\nConfiguration file is stored at:\n/home/li/.config/rclone/rclone.conf",
            "/srv/nfs/share 10.0.0.0/24(rw,sync,no_subtree_check,root_squash)\n/srv/nfs/iso   *(ro,all_squash,anonuid=65534)",
        ),
    ),
    "jvm-benign-14": (
        "B",
        (
            "signing.keyId=24875D73\nsigning.secretKeyRingFile=/home/li/.gnupg/secring.gpg\n# signing.password comes from ORG_GRADLE_PROJECT_signingPassword in CI",
            'credentials += Credentials(Path.userHome / ".sbt" / ".credentials")\npublishTo := sonatypePublishToBundle.value',
            'db.default.password = ${?DB_PASSWORD}\nplay.http.secret.key = ${?APPLICATION_SECRET}\nplay.filters.hosts.allowed = [".acme.dev"]',
        ),
    ),
    "cloudcli-benign-14": (
        "B",
        (
            "$ hcloud server list\nID          NAME    STATUS    IPV4            DATACENTER\n{d9}   web-1   running   203.0.113.21    fsn1-dc14",
            "$ scw instance server list zone=fr-par-1\nID                                    NAME   TYPE     STATE\n{u}  db-1   PRO2-S   running",
            "$ linode-cli linodes list --text --no-headers\n{d9}\tweb-eu\tg6-standard-2\trunning\t172.105.44.19",
        ),
    ),
    "office-benign-14": (
        "B",
        (
            'pw = Application.InputBox("Password for the payroll sheet:", Type:=2)\nIf pw = False Then Exit Sub\nSheets("Payroll").Unprotect Password:=pw',
            '=WENNFEHLER(SVERWEIS(A2;Kunden!A:F;6;FALSCH);"–")\n=TEXT(HEUTE();"JJJJ-MM-TT")',
            "const token = PropertiesService.getScriptProperties().getProperty('HUBSPOT_TOKEN');\nconst res = UrlFetchApp.fetch(url, { headers: { Authorization: 'Bearer ' + token } });",
        ),
    ),
    "appliances-benign-14": (
        "B",
        (
            "admin@DS920:~$ sudo synouser --get backup\nUser Name   : [backup]\nUser Type   : [AUTH_LOCAL]\nFullname    : [Backup user]\nUser uid    : [1027]\nPrimary gid : [100]",
            "Drucker 2. OG: Brother HL-L2350DW, Seriennummer E7{H4}{H4}, MAC {mac}, Firmware 1.71, das Passwort steht auf dem Aufkleber auf der Rückseite",
            '$ midclt call system.info | jq \'{version, hostname, uptime}\'\n{\n  "version": "TrueNAS-SCALE-24.10.0.2",\n  "hostname": "truenas",\n  "uptime": "41 days, 3:12:44"\n}',
        ),
    ),
    "ids-benign-14": (
        "B",
        (
            "ksuid: 2QbZ4{a14}{a6}ab (time-sortable, base62)\nnanoid example from the README: V1StGXR8_Z5jdHi6B-myT\nulid: {ulid}",
            'db.orders.find({ _id: ObjectId("{h24}") })\n{ _id: ObjectId("{h24}"), customer: ObjectId("{h24}"), status: "shipped" }',
            "PaymentIntent pi_3Qx{a14}{a6} succeeded, charge ch_3Qx{a14}{a6}, customer cus_{a14}",
        ),
    ),
    "encodings-benign-14": (
        "B",
        (
            "WIFI:T:nopass;S:Acme-Lobby;;\nBEGIN:VCARD\nVERSION:3.0\nFN:Li Wei\nTEL;TYPE=work:+49 30 901820\nEND:VCARD",
            "IDN check: bücher.de → xn--bcher-kva.de, münchen.de → xn--mnchen-3ya.de",
            "Content-Transfer-Encoding: quoted-printable\n\nGr=C3=BC=C3=9Fe aus K=C3=B6ln, das Passwort-Reset-Formular ist jetzt unter =\nhttps://acme.dev/reset erreichbar.",
        ),
    ),
    "content-hashes-14": (
        "B",
        (
            "version https://git-lfs.github.com/spec/v1\noid sha256:{h64}\nsize 48213377",
            "magnet:?xt=urn:btih:{h}&dn=debian-12.8.0-amd64-netinst.iso&tr=udp%3A%2F%2Ftracker.opentrackr.org%3A1337",
            '< HTTP/2 200\n< etag: W/"{h32}"\n< x-cache: HIT\n< cf-ray: {h16}-FRA',
        ),
    ),
    "example-marked-14": (
        "B",
        (
            "From the AWS CLI docs (example values, not real): aws_access_key_id = AKIAIOSFODNN7EXAMPLE, aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "The example token on jwt.io (HS256, secret `your-256-bit-secret`): eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            'RFC 6238 appendix B test vectors use the ASCII seed "12345678901234567890" (SHA-1); at T = 59 the 8-digit TOTP is 94287082.',
        ),
    ),
    "ciphertext-benign-14": (
        "B",
        (
            'db:\n    password: ENC[AES256_GCM,data:{b64s},iv:{k44},tag:{b64s},type:str]\nsops:\n    age:\n        - recipient: age1{b32l}\n    lastmodified: "2026-12-05T10:14:03Z"\n    version: 3.9.1',
            "$ gpg --armor --encrypt -r ops@acme.dev db.env\n$ cat db.env.asc\n-----BEGIN PGP MESSAGE-----\n\nhQIMA{b64}\n=q8Zx\n-----END PGP MESSAGE-----",
            '{\n  "data": "ENC[AES256_GCM,data:{b64},iv:{k44},tag:{b64s},type:str]",\n  "sops": {"kms": [{"arn": "arn:aws:kms:eu-central-1:412233445566:key/{u}"}], "version": "3.9.1"}\n}',
        ),
    ),
    "help-output-14": (
        "B",
        (
            "$ acme-cli login --help\nUsage: acme-cli login [flags]\n\nFlags:\n  -u, --username string    account name (env ACME_USER)\n  -p, --password string    password; prefer --password-stdin (env ACME_PASSWORD)\n      --password-stdin     read the password from stdin\n      --token string       API token instead of a password",
            ".TH MYSQLDUMP 1\n.SH OPTIONS\n.TP\n\\fB\\-\\-password\\fR[=\\fIpassword\\fR], \\fB\\-p\\fR[\\fIpassword\\fR]\nThe password to use when connecting to the server.",
            "PASSWORD POLICY (v3, 2026-12)\n- at least 14 characters, no composition rules\n- checked against the HIBP range API (only the first 5 hex chars of the SHA-1 leave the machine)\n- rotated only on suspicion of compromise\n- never sent by chat or email; use the vault share link",
        ),
    ),
    "diff-benign-14": (
        "B",
        (
            "--- a/app/settings.py\n+++ b/app/settings.py\n@@ -14,7 +14,7 @@ DATABASES = {\n         'USER': 'app',\n-        'PASSWORD': os.environ['DB_PASS'],\n+        'PASSWORD': env.str('DB_PASSWORD'),\n         'HOST': 'db',",
            "# .gitignore\n.env\n.env.*\n!.env.example\n*.pem\n*.p12\nsecrets/\n.terraform/",
            '{\n  "version": "1.5.0",\n  "results": {\n    "config/settings.yaml": [\n      {"type": "Secret Keyword", "filename": "config/settings.yaml", "hashed_secret": "{h}", "is_verified": false, "line_number": 12}\n    ]\n  }\n}',
        ),
    ),
    "lang-benign-14b": (
        "B",
        (
            "Серһүҙ дөрөҫ түгел, яңынан ҡабатлап ҡарағыҙ.",  # Bashkir
            "Ua galo lau upu faalilolilo? Kiliki le 'Toe seti'.",  # Samoan
            "La contraseña tien de tener polo menos 12 caráuteres.",  # Asturian
        ),
    ),
}
