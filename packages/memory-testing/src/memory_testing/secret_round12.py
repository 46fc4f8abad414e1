"""Round 12 of the generated firewall corpus: secrets and near-misses written blind to the rules.

Written on 2026-12-05 as round 12 by a session that had not read the firewall's rules, its
documentation, its tests or their history, and that never ran the firewall on these samples: the
figures they give measure how the rules generalise to material written by someone who does not
know them. Only `secret_generators.py` was read, for the data format and to pick families,
syntaxes and languages the earlier rounds did not use.

Both tables have the shape `_round(tag, secret_table, benign_table, token_length)` takes:
variant name -> (fold, templates). A secret template holds `{s}` exactly once, where the
generator puts a human password or a random token; a near-miss template holds no secret and no
`{s}`, only `_FILLERS` placeholders for random-looking benign values. The fold is decided by the
family (tool, syntax or language), never by chance: fold A holds network gear (Cisco, MikroTik,
SNMP, BMC), configuration management (Ansible, Puppet, Chef), BEAM and ML-family languages,
PowerShell, Fortran/COBOL/Pascal, LDAP/LDIF, RADIUS/IPsec/PPP, message brokers, ClickHouse/Neo4j/
CouchDB, TeamCity/Drone/Woodpecker, game servers, mail clients, Tajik/Pashto/Kurmanji/Yiddish/
Kyrgyz/Sundanese, transliterated chat and transcripts; fold B holds Junos/OpenWrt, Wi-Fi access
points, Salt, Nix and systemd credentials, Java keystores, .NET user-secrets, fastlane, Lua/Perl/
Tcl, R/Julia/MATLAB, IoT provisioning, CircleCI/Azure/Travis, Db2/HANA/etcd, Breton/Frisian/
Hawaiian/Tigrinya/Igbo/Guarani, odd registers, tickets and mail, Dhall/HOCON/KDL, shell pipes,
stack traces, REPL output and Terraform providers.

Failure: none at import; the tables are plain data (not wired into `generate()` here).
"""

# ruff: noqa: E501, RUF001 - a template is a turn's line (kept on one line), in the script it is written in

from __future__ import annotations

__all__ = ["BENIGN", "SECRETS"]

SECRETS: dict[str, tuple[str, tuple[str, ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "cisco-12": (
        "A",
        (
            "R1(config)# enable secret {s}\nR1(config)# service password-encryption\nR1(config)# end\nR1# write memory",
            "username netops privilege 15 password 0 {s}\n!\naaa new-model\naaa authentication login default local",
            "tacacs server ISE-01\n address ipv4 10.20.0.5\n key 0 {s}\n!\naaa group server tacacs+ ISE",
        ),
    ),
    "mikrotik-12": (
        "A",
        (
            '[admin@MikroTik] > /user add name=netops group=full password="{s}"',
            "/interface wireless security-profiles\nset [ find default=yes ] authentication-types=wpa2-psk mode=dynamic-keys wpa2-pre-shared-key={s}",
            "/ppp secret add name=branch-07 service=l2tp password={s} profile=vpn remote-address=10.99.0.7",
        ),
    ),
    "snmp-12": (
        "A",
        (
            "$ snmpwalk -v2c -c {s} 10.20.1.1 IF-MIB::ifDescr\nIF-MIB::ifDescr.1 = STRING: GigabitEthernet0/0\nIF-MIB::ifDescr.2 = STRING: GigabitEthernet0/1",
            "snmp-server community {s} RO 10\nsnmp-server location DC2-rack14\nsnmp-server contact noc@acme.dev",
            '# /etc/snmp/snmpd.conf\ncreateUser nmsuser SHA-256 "{s}" AES\nrouser nmsuser authPriv',
        ),
    ),
    "bmc-12": (
        "A",
        (
            "$ ipmitool -I lanplus -H 10.30.0.21 -U ADMIN -P '{s}' chassis power status\nChassis Power is on",
            "racadm -r 10.30.0.22 -u root -p {s} serveraction powercycle",
            "curl -sk -u Administrator:{s} https://ilo-db3.oob.acme.dev/redfish/v1/Systems/1 | jq .PowerState",
        ),
    ),
    "ansible-12": (
        "A",
        (
            "[dbservers]\ndb1.acme.dev ansible_user=deploy ansible_become_password={s}\ndb2.acme.dev ansible_user=deploy",
            "$ ansible-playbook -i inventories/prod site.yml -e 'ansible_password={s}' --limit web",
            '# group_vars/windows.yml\nansible_connection: winrm\nansible_user: Administrator\nansible_password: "{s}"\nansible_winrm_transport: ntlm',
        ),
    ),
    "puppet-chef-12": (
        "A",
        (
            "# hieradata/common.yaml\nprofile::mysql::root_password: '{s}'\nprofile::mysql::bind_address: '0.0.0.0'",
            "user { 'deploy':\n  ensure   => present,\n  password => pw_hash('{s}', 'SHA-512', 'mysalt'),\n}",
            '$ knife data bag show credentials smtp -F json\n{\n  "id": "smtp",\n  "user": "mailer",\n  "pass": "{s}"\n}',
        ),
    ),
    "beam-12": (
        "A",
        (
            'iex(3)> {:ok, conn} = Redix.start_link(host: "cache.internal", password: "{s}")',
            '%% config/sys.config\n[{epgsql_pool, [{host, "db"}, {username, "app"}, {password, "{s}"}]}].',
            '{:ok, ref} = :ssh.connect(~c"10.0.0.9", 22, user: ~c"ops", password: ~c"{s}", silently_accept_hosts: true)',
        ),
    ),
    "mlfun-12": (
        "A",
        (
            'let req\' = applyBasicAuth "api" "{s}" req\nresp <- httpLbs req\' manager',
            'let headers = Cohttp.Header.add_authorization (Cohttp.Header.init ()) (`Basic ("svc", "{s}")) in',
            'let connStr = "Host=db;Username=app;Password={s};Database=shop"\nuse conn = new NpgsqlConnection(connStr)',
        ),
    ),
    "powershell-12": (
        "A",
        (
            "PS C:\\> $sec = ConvertTo-SecureString '{s}' -AsPlainText -Force\nPS C:\\> New-LocalUser -Name svc_backup -Password $sec",
            "PS> Invoke-RestMethod -Uri https://api.acme.dev/v2/jobs -Headers @{ 'X-Api-Key' = '{s}' }",
            "PS> $env:PGPASSWORD = '{s}'; psql -h db.internal -U app -c '\\dt'",
        ),
    ),
    "legacy-12": (
        "A",
        (
            "      character(len=*), parameter :: ftp_pass = '{s}'\n      call ftp_login(unit, 'batchftp', ftp_pass, ierr)",
            "       01  WS-DB-USER         PIC X(08) VALUE 'BATCH01'.\n       01  WS-DB-PASSWORD     PIC X(20) VALUE '{s}'.",
            "FDConnection1.Params.UserName := 'SYSDBA';\nFDConnection1.Params.Password := '{s}';\nFDConnection1.Connected := True;",
        ),
    ),
    "ldif-12": (
        "A",
        (
            "dn: uid=svc-backup,ou=services,dc=acme,dc=dev\nobjectClass: inetOrgPerson\nuid: svc-backup\nuserPassword: {s}",
            "$ ldapmodify -Y EXTERNAL -H ldapi:/// <<EOF\ndn: olcDatabase={1}mdb,cn=config\nchangetype: modify\nreplace: olcRootPW\nolcRootPW: {s}\nEOF",
            '# slapd.conf\nsuffix "dc=acme,dc=dev"\nrootdn "cn=Manager,dc=acme,dc=dev"\nrootpw {s}',
        ),
    ),
    "radius-vpn-12": (
        "A",
        (
            "client office-ap {\n    ipaddr = 10.40.0.0/24\n    secret = {s}\n    shortname = office\n}",
            '# /etc/ipsec.secrets\n203.0.113.10 198.51.100.7 : PSK "{s}"',
            "# /etc/ppp/chap-secrets\n# client    server  secret    IP addresses\nbranch07    *       {s}    10.99.0.7",
        ),
    ),
    "brokers-12": (
        "A",
        (
            '$ sudo rabbitmqctl add_user ingest \'{s}\'\nAdding user "ingest" ...\n$ sudo rabbitmqctl set_permissions -p / ingest ".*" ".*" ".*"',
            "$ sudo mosquitto_passwd -b /etc/mosquitto/passwd sensor-hub {s}\n$ sudo systemctl reload mosquitto",
            "$ nats context add prod --server nats://nats.acme.dev:4222 --user ingest --password {s} --select",
        ),
    ),
    "db-cli-12a": (
        "A",
        (
            "$ clickhouse-client --host ch1.acme.dev --user analyst --password {s} --query 'SELECT count() FROM events'",
            "$ cypher-shell -a neo4j://graph.acme.dev:7687 -u neo4j -p '{s}' 'MATCH (n) RETURN count(n);'",
            '$ curl -X PUT http://admin:{s}@couch.acme.dev:5984/orders\n{"ok":true}',
        ),
    ),
    "ci-12a": (
        "A",
        (
            'params {\n    param("env.NEXUS_USER", "ci")\n    password("env.NEXUS_PASS", "{s}", display = ParameterDisplay.HIDDEN)\n}',
            "$ drone secret add --repository acme/api --name docker_password --data {s}",
            "$ woodpecker-cli secret add --repository acme/web --name deploy_key --value '{s}' --event push",
        ),
    ),
    "game-12": (
        "A",
        (
            "# server.properties\nenable-rcon=true\nrcon.port=25575\nrcon.password={s}\nmotd=Acme LAN night",
            '// cfg/server.cfg\nhostname "Acme scrims"\nsv_password "{s}"\nsv_lan 0',
            './valheim_server.x86_64 -name "AcmeVikings" -port 2456 -world "Dedicated" -password "{s}" -public 0',
        ),
    ),
    "mail-12": (
        "A",
        (
            "$ swaks --to qa@acme.dev --server smtp.acme.dev:587 --tls --auth LOGIN --auth-user noreply@acme.dev --auth-password '{s}'",
            "# ~/.msmtprc\naccount acme\nhost smtp.acme.dev\nport 587\nuser noreply@acme.dev\npassword {s}",
            "$ openssl s_client -connect imap.acme.dev:993 -quiet\n* OK IMAP4rev1 ready\na1 LOGIN support@acme.dev {s}\na1 OK LOGIN completed",
        ),
    ),
    "lang-12a": (
        "A",
        (
            "Рамзи сервери базаи маълумот: {s}",  # Tajik
            "د سرور پټنوم {s} دی، چاته یې مه وایه",  # Pashto
            "Şîfreya serverê {s} e, ji kesî re neşîne",  # Kurmanji Kurdish
        ),
    ),
    "lang-12a2": (
        "A",
        (
            "{s} — דאָס איז דאָס נײַע פּאַראָל פֿאַרן סערווער",  # Yiddish, value first
            "Сервердин сырсөзү төмөндө:\n{s}",  # Kyrgyz, value on the next line
            "Akses ka server:\n  • pamaké: admin\n  • kecap aksés: {s}",  # Sundanese, in a list
        ),
    ),
    "translit-12": (
        "A",
        (
            "parol ot prod bazy {s}, tolko ne sveti ego v obshchem chate",  # Russian in Latin letters
            "ya 3am el password bta3 el router {s} matb3touhash l 7ad",  # Egyptian Arabizi
            "o kwdikos gia to wifi tou grafeiou einai {s} re",  # Greeklish
        ),
    ),
    "voice-ocr-12": (
        "A",
        (
            "[voice memo, 00:00:14] okay so for the staging box the password is {s}, I'll rotate it Monday",
            "Transcribed from screenshot (IMG_2231.png):\n  Username: kiosk-admin\n  Password: {s}\n  [ Sign in ]",
            "00:03:41,200 --> 00:03:47,900\nJORGE: yeah just type {s} at the BMC prompt and it lets you in",
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "junos-openwrt-12": (
        "B",
        (
            "[edit]\nroot@srx# set snmp community {s} authorization read-only\nroot@srx# set snmp trap-group nms targets 10.20.0.5",
            'set security ike policy IKE-POL pre-shared-key ascii-text "{s}"\ncommit check',
            "root@OpenWrt:~# uci set wireless.default_radio0.key='{s}'\nroot@OpenWrt:~# uci commit wireless && wifi reload",
        ),
    ),
    "wifi-ap-12": (
        "B",
        (
            "# /etc/hostapd/hostapd.conf\ninterface=wlan0\nssid=AcmeGuest\nwpa=2\nwpa_passphrase={s}\nwpa_key_mgmt=WPA-PSK",
            "$ wpa_passphrase AcmeLab '{s}' | sudo tee -a /etc/wpa_supplicant/wpa_supplicant-wlan0.conf",
            'network:\n  version: 2\n  wifis:\n    wlan0:\n      access-points:\n        "AcmeLab":\n          password: "{s}"\n      dhcp4: true',
        ),
    ),
    "salt-12": (
        "B",
        (
            "# /srv/pillar/mysql.sls\nmysql:\n  server:\n    root_password: {s}",
            "$ sudo salt 'db*' mysql.user_create app localhost '{s}'",
            '$ sudo salt-call --local state.apply postgres pillar=\'{"pg": {"password": "{s}"}}\'',
        ),
    ),
    "nix-systemd-12": (
        "B",
        (
            '  services.grafana.settings.security = {\n    admin_user = "admin";\n    admin_password = "{s}";\n  };',
            "$ echo -n '{s}' | sudo systemd-creds encrypt --name=db_pass - /etc/credstore.encrypted/db_pass",
            "[Service]\nSetCredential=smtp_pass:{s}\nLoadCredential=tls_key:/etc/ssl/private/mail.key\nExecStart=/usr/bin/mailrelay",
        ),
    ),
    "jvm-keystore-12": (
        "B",
        (
            "$ keytool -importcert -noprompt -alias corp-ca -file ca.pem -keystore truststore.p12 -storetype PKCS12 -storepass {s}",
            'JAVA_TOOL_OPTIONS="-Djavax.net.ssl.trustStore=/etc/ssl/truststore.p12 -Djavax.net.ssl.trustStorePassword={s}"',
            'android {\n    signingConfigs {\n        create("release") {\n            storeFile = file("upload.jks")\n            keyAlias = "upload"\n            keyPassword = "{s}"\n        }\n    }\n}',
        ),
    ),
    "dotnet-12": (
        "B",
        (
            '$ dotnet user-secrets set "Smtp:Password" "{s}" --project src/Api\nSuccessfully saved Smtp:Password to the secret store.',
            '// secrets.json\n{\n  "Payments": {\n    "Adyen": {\n      "ApiKey": "{s}"\n    }\n  }\n}',
            "$ dotnet nuget add source https://pkgs.acme.dev/nuget/v3/index.json -n acme -u ci -p {s} --store-password-in-clear-text",
        ),
    ),
    "fastlane-12": (
        "B",
        (
            "$ MATCH_PASSWORD='{s}' bundle exec fastlane match appstore --readonly",
            'lane :beta do\n  ENV["FASTLANE_PASSWORD"] = "{s}"\n  build_app(scheme: "Acme")\n  upload_to_testflight\nend',
            "$ security unlock-keychain -p {s} ~/Library/Keychains/ci.keychain-db\n$ xcodebuild -scheme Acme archive",
        ),
    ),
    "scripting-12": (
        "B",
        (
            'local env = luasql.mysql()\nlocal conn = assert(env:connect("shop", "app", "{s}", "db.internal"))',
            "my $smtp = Net::SMTP->new('smtp.acme.dev', Port => 587);\n$smtp->starttls();\n$smtp->auth('noreply', '{s}');",
            "package require tdbc::postgres\ntdbc::postgres::connection create db -host db -user app -password {s} -database shop",
        ),
    ),
    "science-12": (
        "B",
        (
            'keyring::key_set_with_value(service = "dw", username = "analyst", password = "{s}")',
            'julia> r = HTTP.get("https://api.acme.dev/v1/runs", ["Authorization" => "Bearer {s}"])',
            "conn = database('warehouse', 'analyst', '{s}', 'Vendor', 'PostgreSQL', 'Server', 'dw.acme.dev');",
        ),
    ),
    "iot-12": (
        "B",
        (
            "AT+JOINEUI=70B3D57ED0000000\nOK\nAT+APPKEY={s}\nOK\nAT+JOIN\n+JOIN: Network joined",
            "Backlog SSID1 Workshop; Password1 {s}; MqttHost 10.0.0.20; MqttUser tasmota",
            "# secrets.yaml (Home Assistant)\nmqtt_password: {s}\nlatitude_home: 52.37",
        ),
    ),
    "ci-12b": (
        "B",
        (
            "$ circleci context store-secret github acme deploy-ctx NPM_TOKEN <<< '{s}'",
            "$ az pipelines variable create --pipeline-name api-ci --name DbPassword --value '{s}' --secret true",
            "$ travis env set SONAR_TOKEN {s} --private -r acme/api",
        ),
    ),
    "db-cli-12b": (
        "B",
        (
            "$ db2 connect to SAMPLE user db2inst1 using {s}\n\n   Database Connection Information\n\n Database server        = DB2/LINUXX8664 11.5.9.0",
            '$ hdbsql -n hana01:30015 -u SYSTEM -p {s} "SELECT DATABASE_NAME FROM M_DATABASE"',
            "$ etcdctl --endpoints=https://10.0.0.5:2379 --user root:{s} get /config/api --prefix",
        ),
    ),
    "lang-12b": (
        "B",
        (
            "Ar ger-tremen evit ar servijer eo {s}",  # Breton
            "It wachtwurd fan de databank is {s}, net trochjaan asjebleaft",  # West Frisian
            "ʻO ka ʻōlelo huna o ka kikowaena ʻo {s}",  # Hawaiian
        ),
    ),
    "lang-12b2": (
        "B",
        (
            "ናይ ሰርቨር መሕለፊ ቃል፡ {s}",  # Tigrinya
            "Okwuntughe nke sava bụ {s}, ekesala ya onye ọ bụla",  # Igbo
            "| Sistema | Puruhára | Ñe'ẽñemi |\n|---|---|---|\n| servidor | admin | {s} |",  # Guarani, in a table
        ),
    ),
    "register-12": (
        "B",
        (
            "teh pasword for teh jenkins box is {s} lol dont tell mgmt",  # typos and slang
            "Sehr geehrte Frau Novak,\n\nanbei Ihr vorläufiges Zugangskennwort für das Kundenportal:\n\n{s}\n\nMit freundlichen Grüßen\nIhr IT-Service",  # formal letter
            "saabaa no pasuwaado wa {s} desu. yoroshiku onegaishimasu.",  # Japanese in romaji
        ),
    ),
    "tickets-12": (
        "B",
        (
            "[JIRA] OPS-5120 comment by Priya:\n{code}\nexport SFTP_PASS={s}\n{code}\nworks now, closing.",
            "On Tue, 3 Dec 2026 at 09:12, Marek <marek@acme.dev> wrote:\n> what's the vpn pw for the contractor account?\n\n{s} - it expires end of month",
            "Zendesk #88213 (internal note): customer asked us to log in as them and gave pw {s}; done, asked them to reset it",
        ),
    ),
    "formats-12": (
        "B",
        (
            '-- ./db.dhall\n{ host = "db.internal", user = "app", password = "{s}" }',
            'database {\n  url = "jdbc:postgresql://db/app"\n  user = app\n  password = "{s}"\n  password = ${?DB_PASSWORD}\n}',
            'smtp host="smtp.acme.dev" port=587 {\n    auth user="mailer" pass="{s}"\n}',
        ),
    ),
    "pipes-12": (
        "B",
        (
            "$ echo '{s}' | sudo -S systemctl restart nginx\n[sudo] password for ops:",
            "$ htpasswd -bc /etc/nginx/.htpasswd grafana {s}\nAdding password for user grafana",
            "$ printf '%s' '{s}' | docker secret create pg_password -\nxk2l9q0v8r5t3j1m7n4b6c2d0",
        ),
    ),
    "traces-12": (
        "B",
        (
            "org.postgresql.util.PSQLException: The connection attempt failed.\n\tat org.postgresql.Driver.connect(Driver.java:297)\nCaused by: java.net.UnknownHostException: db-replica\n  datasource.url=jdbc:postgresql://db-replica:5432/app?user=app&password={s}",
            "urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='api.acme.dev', port=443): Max retries exceeded (Caused by ProxyError('Unable to connect to proxy'))\n  proxies={'https': 'http://ops:{s}@proxy.acme.dev:3128'}",
            "Error: connect ETIMEDOUT 10.0.0.7:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {\n  errno: -110,\n  config: { host: '10.0.0.7', user: 'app', password: '{s}', database: 'shop' }\n}",
        ),
    ),
    "repl-12": (
        "B",
        (
            '> Sys.getenv("DW_PASS")\n[1] "{s}"',
            "In [7]: settings.model_dump()\nOut[7]: {'db_user': 'etl', 'db_password': '{s}', 'db_host': 'dw'}",
            'irb(main):004> Rails.application.credentials.dig(:smtp, :password)\n=> "{s}"',
        ),
    ),
    "tf-providers-12": (
        "B",
        (
            'provider "mysql" {\n  endpoint = "db.internal:3306"\n  username = "root"\n  password = "{s}"\n}',
            'provider "proxmox" {\n  pm_api_url  = "https://pve.acme.dev:8006/api2/json"\n  pm_user     = "terraform@pve"\n  pm_password = "{s}"\n}',
            'provider "grafana" {\n  url  = "https://grafana.acme.dev"\n  auth = "admin:{s}"\n}',
        ),
    ),
}

BENIGN: dict[str, tuple[str, tuple[str, ...]]] = {
    # -- fold A ------------------------------------------------------------------------------------
    "net-benign-12a": (
        "A",
        (
            "username netops privilege 15 secret 9 $9${c16}${c53}\nservice password-encryption\nsecurity passwords min-length 12",
            '[admin@MikroTik] > /certificate print detail\n 0 K  name="webfig" common-name="router.acme.dev" fingerprint="{h64}" invalid-after=2027-12-05',
            "R1#show crypto key mypubkey rsa\n% Key pair was generated at: 10:02:11 UTC Dec 5 2026\nKey name: R1.acme.dev\n Usage: General Purpose Key\n Key Data:\n  {h32}{h32}\n  {h32}{h32}",
        ),
    ),
    "snmp-benign-12": (
        "A",
        (
            "$ snmpwalk -v2c -c public 127.0.0.1 system   # net-snmp tutorial: the read-only default, bound to localhost\nSNMPv2-MIB::sysDescr.0 = STRING: Linux build-7 6.8.0-31-generic\nSNMPv2-MIB::sysObjectID.0 = OID: NET-SNMP-MIB::netSnmpAgentOIDs.10",
            "IF-MIB::ifPhysAddress.2 = STRING: {mac}\nIF-MIB::ifHCInOctets.2 = Counter64: 884213377120\nSNMP-FRAMEWORK-MIB::snmpEngineID.0 = Hex-STRING: 80 00 1F 88 80 {H4} {H4}",
            "# snmpd.conf: community strings live in /etc/snmp/snmpd.local.conf (root, 0600, managed by ansible)\nsysLocation DC2 rack 14\nsysContact noc@acme.dev\nagentAddress udp:161",
        ),
    ),
    "bmc-benign-12": (
        "A",
        (
            "$ ipmitool sdr type temperature\nCPU1 Temp        | 30h | ok  |  3.1 | 41 degrees C\nPCH Temp         | 0Ah | ok  |  7.1 | 48 degrees C",
            "$ ipmitool lan print 1\nIP Address Source       : Static Address\nIP Address              : 10.30.0.21\nMAC Address             : {mac}\nAuth Type Enable        : Callback : MD2 MD5 PASSWORD\n                        : User     : MD2 MD5 PASSWORD",
            "Since BMC firmware 3.x every board ships with a unique password printed on the pull-out tag; the old ADMIN/ADMIN default is gone. Change it with `ipmitool user set password 2` (it prompts).",
        ),
    ),
    "ansible-benign-12": (
        "A",
        (
            '- name: create the app role\n  community.postgresql.postgresql_user:\n    name: app\n    password: "{{ vault_app_db_password }}"\n  no_log: true',
            "$ ansible-vault encrypt_string --stdin-name smtp_pass\nsmtp_pass: !vault |\n          $ANSIBLE_VAULT;1.1;AES256\n          {vault}",
            "$ ansible-playbook site.yml --ask-become-pass --vault-id prod@prompt\nBECOME password:\nVault password (prod):\n\nPLAY [all] *********************************************************",
        ),
    ),
    "puppet-chef-benign-12": (
        "A",
        (
            "profile::mysql::root_password: >\n    ENC[PKCS7,{b64}]",
            "$ knife data bag show credentials smtp\nWARNING: Encrypted data bag detected, but no secret provided for decoding. Displaying encrypted data.\nid:   smtp\npass:\n  auth_tag:       {b64s}\n  cipher:         aes-256-gcm\n  encrypted_data: {b64}\n  iv:             {b64s}\n  version:        3",
            "class profile::mysql (\n  Sensitive[String] $root_password = lookup('profile::mysql::root_password'),\n) {\n  class { 'mysql::server': root_password => $root_password }\n}",
        ),
    ),
    "beam-benign-12": (
        "A",
        (
            '"jason": {:hex, :jason, "1.4.4", "{h64}", [:mix], [{:decimal, "~> 1.0 or ~> 2.0", [hex: :decimal, repo: "hexpm", optional: true]}], "hexpm", "{h64}"},',
            "def register(attrs) do\n  %User{}\n  |> User.registration_changeset(attrs)\n  |> validate_length(:password, min: 12, max: 72)\n  |> Repo.insert()\nend",
            "=CRASH REPORT==== 5-Dec-2026::10:14:03.221 ===\n  crasher:\n    initial call: epgsql_sock:init/1\n    pid: <0.812.0>\n    exception exit: {error,invalid_password}",
        ),
    ),
    "mlfun-benign-12": (
        "A",
        (
            'newtype Password = Password Text\n\ninstance Show Password where\n  show _ = "Password <redacted>"',
            'opam-version: "2.0"\nurl {\n  src: "https://github.com/mirage/ocaml-cohttp/releases/download/v6.0.0/cohttp-6.0.0.tbz"\n  checksum: [\n    "sha256={h64}"\n    "sha512={h64}{h64}"\n  ]\n}',
            "constraints: any.aeson ==2.2.3.0,\n             any.crypton ==1.0.1,\n             any.password ==3.0.4.0\nindex-state: hackage.haskell.org 2026-11-30T08:12:44Z",
        ),
    ),
    "powershell-benign-12": (
        "A",
        (
            "PS> $cred = Get-Credential -UserName 'ACME\\svc_sql' -Message 'Password for the SQL service account'\nPS> Enter-PSSession -ComputerName sql02 -Credential $cred",
            "PS> Get-FileHash .\\setup.msi -Algorithm SHA256\n\nAlgorithm       Hash                                                                   Path\n---------       ----                                                                   ----\nSHA256          {H40}{H16}{H4}{H4}       C:\\dl\\setup.msi",
            "PS> $s = Read-Host 'Service password' -AsSecureString\nService password: ************\nPS> $s | ConvertFrom-SecureString | Set-Content .\\svc.txt   # DPAPI: only this user on this machine can read it back",
        ),
    ),
    "ldif-benign-12": (
        "A",
        (
            "dn: cn=default,ou=policies,dc=acme,dc=dev\nobjectClass: pwdPolicy\npwdAttribute: userPassword\npwdMinLength: 12\npwdMaxAge: 7776000\npwdInHistory: 5\npwdLockout: TRUE",
            "dn: uid=ana,ou=people,dc=acme,dc=dev\nentryUUID: {u}\nmodifiersName: cn=admin,dc=acme,dc=dev\nmodifyTimestamp: 20261205101403Z\npwdChangedTime: 20261130084012Z",
            "$ ldappasswd -H ldaps://ldap.acme.dev -x -D 'cn=admin,dc=acme,dc=dev' -W -S 'uid=ana,ou=people,dc=acme,dc=dev'\nNew password:\nRe-enter new password:\nEnter LDAP Password:",
        ),
    ),
    "radius-benign-12": (
        "A",
        (
            "Sent Access-Request Id 112 from 0.0.0.0:53122 to 127.0.0.1:1812 length 77\nReceived Access-Accept Id 112 from 127.0.0.1:1812 to 127.0.0.1:53122 length 84\n\tMessage-Authenticator = 0x{h32}",
            "$ sudo ipsec statusall | tail -3\nsite-b[2]: ESTABLISHED 41 minutes ago, 203.0.113.10[203.0.113.10]...198.51.100.7[198.51.100.7]\nsite-b{1}:  INSTALLED, TUNNEL, reqid 1, ESP SPIs: c{h7}_i c{h7}_o\nsite-b{1}:   AES_GCM_16_256, 1835 bytes_i, 2210 bytes_o",
            'conn site-b\n    keyexchange=ikev2\n    authby=pubkey\n    leftcert=gw-a.crt\n    rightid="CN=gw-b.acme.dev"\n    ike=aes256gcm16-prfsha384-ecp384!',
        ),
    ),
    "broker-benign-12": (
        "A",
        (
            "$ sudo rabbitmqctl list_users\nListing users ...\nuser\ttags\nadmin\t[administrator]\ningest\t[]\nmonitoring\t[monitoring]",
            "$ nats account info\nAccount Information\n  User: ingest\n  Account: AD{AK16}{AK16}{AK16}{AK4}QA\n  Expires: never\n  Client ID: 41",
            "GROUP   TOPIC   PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID\ningest  orders  0          88213           88213           0    consumer-ingest-1-{u}",
        ),
    ),
    "db-benign-12a": (
        "A",
        (
            "SELECT query_id, user, query_duration_ms FROM system.query_log WHERE type = 'QueryFinish' LIMIT 1\n┌─query_id─────────────────────────────┬─user────┬─query_duration_ms─┐\n│ {u} │ analyst │               412 │\n└──────────────────────────────────────┴─────────┴───────────────────┘",
            'neo4j@neo4j> SHOW USERS;\n+-----------------------------------------------------------+\n| user    | roles     | passwordChangeRequired | suspended |\n| "neo4j" | ["admin"] | FALSE                  | FALSE     |',
            "cpu,host=build-7,region=eu usage_idle=91.2,usage_user=5.1 1733393643000000000\nmem,host=build-7 used_percent=63.4 1733393643000000000",
        ),
    ),
    "ci-benign-12a": (
        "A",
        (
            'params {\n    password("env.NEXUS_PASS", "credentialsJSON:{u}", display = ParameterDisplay.HIDDEN)\n}',
            "steps:\n  - name: publish\n    image: plugins/docker\n    settings:\n      username: acmebot\n      password:\n        from_secret: docker_password",
            "[12:02:11] : Step 3/5: Publish (Gradle)\n[12:02:11] :  Parameter env.NEXUS_PASS = *******\n[12:02:44] : BUILD SUCCESSFUL in 33s",
        ),
    ),
    "mail-game-benign-12": (
        "A",
        (
            "S: 220 smtp.acme.dev ESMTP Postfix\nC: EHLO build-7\nS: 250-smtp.acme.dev\nS: 250-AUTH PLAIN LOGIN\nS: 250 STARTTLS\nC: QUIT",
            "Message-ID: <{u}@mail.acme.dev>\nDKIM-Signature: v=1; a=rsa-sha256; d=acme.dev; s=sel1; bh={k44}; b={b64}",
            "# server.properties\nenable-rcon=false\nrcon.password=\nlevel-seed=-{d18}\nwhite-list=true",
        ),
    ),
    "lang-benign-12a": (
        "A",
        (
            "Рамзро фаромӯш кардед? Тугмаи «Барқарор кардан»-ро пахш кунед.",  # Tajik
            "ستاسو پټنوم باید لږ تر لږه ۱۲ توري ولري.",  # Pashto
            "Şîfre xelet e, ji kerema xwe dîsa biceribîne.",  # Kurmanji
        ),
    ),
    "translit-benign-12": (
        "A",
        (
            "parol nevernyi, poprobui eshche raz ili nazhmi 'zabyl parol'",  # Russian in Latin letters
            "el password 3'alat, 7awel tany aw dous 'nseet el password'",  # Arabizi
            "lathos kwdikos, dokimase pali se 5 lepta",  # Greeklish
        ),
    ),
    # -- fold B ------------------------------------------------------------------------------------
    "junos-benign-12": (
        "B",
        (
            'set system root-authentication encrypted-password "$6${c16}${c86}"\nset system login user ops class super-user authentication encrypted-password "$6${c16}${c86}"',
            "root@srx> show security ike security-associations\nIndex   State  Initiator cookie  Responder cookie  Mode   Remote Address\n4211203 UP     {h16}  {h16}  IKEv2  198.51.100.7",
            "root@OpenWrt:~# uci show wireless.default_radio0\nwireless.default_radio0.ssid='AcmeLab'\nwireless.default_radio0.encryption='sae'\nwireless.default_radio0.macaddr='{mac}'\nwireless.default_radio0.network='lan'",
        ),
    ),
    "wifi-benign-12": (
        "B",
        (
            "$ iw dev wlan0 scan | grep -E 'BSS|SSID|RSN'\nBSS {mac}(on wlan0)\n\tSSID: AcmeGuest\n\tRSN:\t * Version: 1",
            "$ nmcli -s connection show AcmeLab | grep psk\n802-11-wireless-security.psk:           <hidden>\n802-11-wireless-security.psk-flags:     1 (agent-owned)",
            "# hostapd.conf\nwpa=2\nwpa_key_mgmt=WPA-EAP\nieee8021x=1\nauth_server_addr=10.40.0.5\nauth_server_port=1812\n# the RADIUS shared secret is templated in by salt, never committed",
        ),
    ),
    "salt-benign-12": (
        "B",
        (
            "$ sudo salt-key -f web-01\nAccepted Keys:\nweb-01:  {colonhex}",
            "mysql:\n  server:\n    root_password: |\n      -----BEGIN PGP MESSAGE-----\n\n      {b64}\n      -----END PGP MESSAGE-----",
            "mysql_root:\n  mysql_user.present:\n    - name: root\n    - password: {{ salt['pillar.get']('mysql:server:root_password') }}",
        ),
    ),
    "nix-benign-12": (
        "B",
        (
            'src = fetchFromGitHub {\n  owner = "grafana";\n  repo = "grafana";\n  rev = "v11.3.1";\n  hash = "sha256-{k44}";\n};',
            'services.grafana.settings.security.admin_password = "$__file{${config.age.secrets.grafana.path}}";\nage.secrets.grafana.file = ../secrets/grafana.age;',
            "$ systemd-creds list\nNAME     SECURE  SIZE PATH\ndb_pass  secure   32B /run/credentials/api.service/db_pass\nsmtp     secure   24B /run/credentials/api.service/smtp",
        ),
    ),
    "keystore-benign-12": (
        "B",
        (
            "$ keytool -list -v -keystore upload.jks -storepass:env KS_PASS | head\nAlias name: upload\nSerial number: {h16}\nCertificate fingerprints:\n\t SHA256: {colonhex}:{colonhex}",
            'signingConfigs {\n    create("release") {\n        storeFile = file(System.getenv("KEYSTORE_PATH"))\n        storePassword = System.getenv("KEYSTORE_PASSWORD")\n        keyPassword = System.getenv("KEY_PASSWORD")\n    }\n}',
            "$ apksigner verify --print-certs app-release.apk\nSigner #1 certificate DN: CN=Acme, O=Acme GmbH\nSigner #1 certificate SHA-256 digest: {h64}\nSigner #1 certificate SHA-1 digest: {h}",
        ),
    ),
    "dotnet-benign-12": (
        "B",
        (
            "<PropertyGroup>\n  <TargetFramework>net9.0</TargetFramework>\n  <UserSecretsId>{u}</UserSecretsId>\n</PropertyGroup>",
            "$ dotnet user-secrets list --project src/Api\nNo secrets configured for this application.",
            '"Smtp": {\n  "Host": "smtp.acme.dev",\n  "Port": 587,\n  "Password": ""  // set with dotnet user-secrets, never here\n}',
        ),
    ),
    "fastlane-benign-12": (
        "B",
        (
            "[10:12:03]: 🔓  Successfully decrypted certificates repo\n[10:12:04]: Installing provisioning profile 'match AppStore dev.acme.notes' ({u})\n[10:12:04]: ✅ All required keys, certificates and provisioning profiles are installed 🙌",
            '$ security find-identity -v -p codesigning\n  1) {H40} "Apple Distribution: Acme GmbH (7X2K9Q4M1B)"\n     1 valid identities found',
            '# Matchfile\ngit_url("git@github.com:acme/ios-certs.git")\nstorage_mode("git")\ntype("appstore")\n# MATCH_PASSWORD comes from the CI secret store',
        ),
    ),
    "scripting-benign-12": (
        "B",
        (
            "use Digest::SHA qw(sha256_hex);\nprint sha256_hex(''), \"\\n\";\n# e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "GetOptions('user=s' => \\$user, 'password=s' => \\$password, 'host=s' => \\$host)\n    or die \"usage: $0 --user U --password P --host H\\n\";",
            "-- rate limiter\nlocal key = 'rl:' .. KEYS[1]\nlocal n = redis.call('INCR', key)\nif n == 1 then redis.call('EXPIRE', key, 60) end\nreturn n",
        ),
    ),
    "science-benign-12": (
        "B",
        (
            '[[deps.HTTP]]\ndeps = ["Base64", "CodecZlib", "Dates"]\ngit-tree-sha1 = "{h}"\nuuid = "cd3eb016-35fb-5094-929b-558a96fad6f3"\nversion = "1.10.8"',
            '> digest::digest(mtcars, algo = "sha256")\n[1] "{h64}"\n> set.seed(20261205)',
            ">> rng(42); x = randn(1, 3)\nx =\n    0.5377    1.8339   -2.2588",
        ),
    ),
    "iot-benign-12": (
        "B",
        (
            "DevEUI   70B3D57ED005{H4}{H4}\nJoinEUI  0000000000000000\nFPort 2, FCnt 118, RSSI -97, SNR 7.2",
            "I (312) wifi:mode : sta ({mac})\nI (1422) esp_netif_handlers: sta ip: 10.0.0.61, mask: 255.255.255.0, gw: 10.0.0.1\nI (1430) mqtt: connecting to mqtts://broker.local:8883",
            "mqtt:\n  broker: 10.0.0.20\n  username: hass\n  password: !secret mqtt_password",
        ),
    ),
    "ci-benign-12b": (
        "B",
        (
            'env:\n  global:\n    - secure: "{b64}"',
            "workflows:\n  deploy:\n    jobs:\n      - publish:\n          context: org-global\n          filters:\n            branches:\n              only: main",
            "- script: ./deploy.sh\n  env:\n    DB_PASSWORD: $(DbPassword)  # secret pipeline variable, mapped explicitly",
        ),
    ),
    "db-benign-12b": (
        "B",
        (
            "$ hdbuserstore list\nDATA FILE       : /home/hxeadm/.hdb/hana01/SSFS_HDB.DAT\nKEY FILE        : /home/hxeadm/.hdb/hana01/SSFS_HDB.KEY\n\nKEY BACKUP\n  ENV : hana01:30015\n  USER: BACKUP_OPERATOR",
            "$ etcdctl endpoint status -w table\n| ENDPOINT              | ID               | VERSION | DB SIZE | IS LEADER |\n| https://10.0.0.5:2379 | {h16} | 3.5.16  | 24 MB   | true      |",
            "$ db2 list db directory\n Database alias                       = SAMPLE\n Database name                        = SAMPLE\n Authentication                       = SERVER_ENCRYPT\n Directory entry type                 = Indirect",
        ),
    ),
    "lang-benign-12b": (
        "B",
        (
            "Ar ger-tremen a rank bezañ 12 arouezenn d'an nebeutañ.",  # Breton
            "Wachtwurd ferjitten? Klik op «Opnij ynstelle».",  # West Frisian
            "መሕለፊ ቃልካ ጌጋ እዩ፣ በጃኻ ደጊምካ ፈትን።",  # Tigrinya
        ),
    ),
    "tickets-benign-12": (
        "B",
        (
            "OPS-5121 Rotate the SMTP relay password\nStatus: Done\nResolution: rotated 2026-12-04, the new value is only in 1Password item `smtp-relay-prod`; consumers redeployed.",
            'Zendesk macro "Account access": Thanks for reaching out! Our team will never ask for your password. Please reset it at https://acme.dev/reset and reply once done.',
            "> did you put the token in the ticket?\n\nno, it's in vault under kv/ci/sonar, ask in #platform for read access",
        ),
    ),
    "formats-benign-12": (
        "B",
        (
            'let Config = { host : Text, user : Text, password : Optional Text }\nin  { host = "db.internal", user = "app", password = None Text } : Config',
            '#User: {\n    email:    string & =~"^[^@]+@[^@]+$"\n    password: string & strings.MinRunes(12)\n}',
            '"password": {\n  "type": "string",\n  "format": "password",\n  "minLength": 12,\n  "writeOnly": true\n}',
        ),
    ),
    "traces-benign-12": (
        "B",
        (
            'org.postgresql.util.PSQLException: FATAL: password authentication failed for user "app"\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:693)',
            'sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed: FATAL: password authentication failed for user "etl"\n(Background on this error at: https://sqlalche.me/e/20/e3q8)',
            "Error: Request failed with status code 401\n    at settle (node_modules/axios/lib/core/settle.js:19:12)\n  config: { url: '/v1/jobs', headers: { Authorization: '[redacted]' } },\n  request_id: '{u}'",
        ),
    ),
}
