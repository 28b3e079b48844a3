//! A verified TLS link to the database: a private cluster with `ssl = on` that refuses every
//! connection without TLS (pg_hba `hostssl … trust`, `hostnossl … reject`), its certificate for
//! `db.example.test` signed by a certificate authority made here (rcgen). `verify-full` connects for
//! `migrate`, the gateway's pool and the webhook worker; a wrong host name, a foreign authority and
//! `sslmode=disable` are refused, with messages that say why and never quote the password.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;
use uuid::Uuid;

use crate::common::webhooks::{loopback_is_public, FixedResolver, RunningWorker, TestAuthority};
use crate::common::{connect, PrivateCluster, TestApp};
use gateway::db_tls::DatabaseLink;

/// The name the server's certificate holds; nothing resolves it: `hostaddr` says where to connect.
const SERVER_NAME: &str = "db.example.test";
/// In every URL, and never in a message (trust authentication: the server never asks for it).
const PASSWORD: &str = "Pa55-never-shown";

const HBA: &str = "local all all trust\n\
                   hostssl all all 127.0.0.1/32 trust\n\
                   hostnossl all all all reject\n";

/// A certificate authority, made at test time.
struct Authority {
    key: rcgen::KeyPair,
    certificate: rcgen::Certificate,
}

impl Authority {
    fn new(name: &str) -> Authority {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.distinguished_name.push(rcgen::DnType::CommonName, name);
        let certificate = params.self_signed(&key).unwrap();
        Authority { key, certificate }
    }

    /// A server certificate for `names` and its key, both PEM.
    fn issue(&self, names: &[&str]) -> (String, String) {
        let key = rcgen::KeyPair::generate().unwrap();
        let params = rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        let certificate = params.signed_by(&key, &self.certificate, &self.key).unwrap();
        (certificate.pem(), key.serialize_pem())
    }
}

/// The TLS-only cluster, and the root files a client may be given: the authority that signed the
/// server's certificate, and one that did not.
struct TlsCluster {
    cluster: PrivateCluster,
    dir: PathBuf,
    ca: PathBuf,
    foreign_ca: PathBuf,
}

impl TlsCluster {
    async fn start() -> TlsCluster {
        let authority = Authority::new("database tests CA");
        let foreign = Authority::new("a CA the server never met");
        let (certificate, key) = authority.issue(&[SERVER_NAME]);
        let cluster = PrivateCluster::create_with("ssl = on").await;
        cluster.write_data_file("server.crt", certificate.as_bytes());
        cluster.write_data_file("server.key", key.as_bytes());
        cluster.write_data_file("pg_hba.conf", HBA.as_bytes());
        cluster.start().await;
        let dir = std::env::temp_dir().join(format!("gw-tls-{}", Uuid::new_v4().simple()));
        std::fs::create_dir(&dir).unwrap();
        let (ca, foreign_ca) = (dir.join("ca.pem"), dir.join("foreign-ca.pem"));
        std::fs::write(&ca, authority.certificate.pem()).unwrap();
        std::fs::write(&foreign_ca, foreign.certificate.pem()).unwrap();
        TlsCluster { cluster, dir, ca, foreign_ca }
    }

    /// The superuser URL with `host` (port and password included) and the query `params`.
    fn url(&self, host: &str, params: &str) -> String {
        format!("postgres://postgres:{PASSWORD}@{host}:{}/postgres?{params}", self.cluster.port())
    }

    /// `verify-full` against the right authority, the certificate checked against `host`.
    fn verify_full(&self, host: &str) -> String {
        self.url(host, &format!("hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={}", self.ca.display()))
    }
}

impl Drop for TlsCluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Connects as the gateway would; answers whether the session is encrypted, or why it failed.
async fn session_is_tls(url: &str) -> Result<bool, String> {
    let link = DatabaseLink::parse(url, "DATABASE_URL")?;
    let (client, connection) = link.connect().await.map_err(|error| link.explain(&error))?;
    tokio::spawn(connection);
    let row = client
        .query_one("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[])
        .await
        .map_err(|e| e.to_string())?;
    Ok(row.get(0))
}

/// A refusal's message: it must say `why` and must not quote the password.
fn assert_refused(outcome: Result<impl std::fmt::Debug, String>, why: &str) -> String {
    let message = outcome.expect_err("the connection must be refused");
    assert!(message.contains(why), "the message says {why:?}: {message}");
    assert!(!message.contains(PASSWORD), "the password is never in a message: {message}");
    message
}

/// TLS sessions of the cluster whose application_name is `application`.
async fn tls_sessions_of(url: &str, application: &str) -> i64 {
    connect(url)
        .await
        .query_one(
            "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE ssl AND application_name = $1",
            &[&application],
        )
        .await
        .expect("reading pg_stat_ssl")
        .get(0)
}

#[tokio::test]
async fn verify_full_carries_migrate_the_gateway_and_the_webhook_worker() {
    let world = TlsCluster::start().await;
    // host names the certificate's holder, hostaddr says where it is: the name is what is checked.
    let url = world.verify_full(SERVER_NAME);

    gateway::migrate::run(&url).await.expect("migrate over verify-full");

    let app = TestApp::spawn_on(&url, |_| {}).await;
    let (_operator, credential) = app.operator_with_credential().await;
    let response = app.ping(Some(&credential.bearer())).await;
    assert_eq!(response.status, 200, "a request served through the pool: {:?}", response.text());
    assert!(tls_sessions_of(&url, "ingest-gateway").await >= 1, "the pool's sessions are TLS sessions");

    let worker = RunningWorker::start(&url, &TestAuthority::new(), 1, FixedResolver::default(), loopback_is_public());
    let mut worker_sessions = 0;
    for _ in 0..100 {
        worker_sessions = tls_sessions_of(&url, "ingest-webhooks").await;
        if worker_sessions > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(worker_sessions, 1, "the webhook worker connects over verify-full too");
    worker.stop().await;
    app.shutdown().await;
}

#[tokio::test]
async fn a_wrong_host_name_or_a_foreign_authority_is_refused() {
    let world = TlsCluster::start().await;
    let wrong_name = world.verify_full("wrong.example.test");
    let message = assert_refused(gateway::migrate::run(&wrong_name).await, "certificate not valid for name");
    assert!(message.starts_with("cannot connect to the database: error performing TLS handshake"), "{message}");
    // The address alone is not the name either.
    assert_refused(session_is_tls(&world.verify_full("127.0.0.1")).await, "certificate not valid for name");

    let foreign = world.url(
        SERVER_NAME,
        &format!("hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={}", world.foreign_ca.display()),
    );
    let message = assert_refused(gateway::migrate::run(&foreign).await, "UnknownIssuer");
    assert!(
        message.ends_with("(no certificate authority of sslrootcert signed the server's certificate)"),
        "{message}"
    );
    assert_refused(session_is_tls(&foreign.replace("verify-full", "verify-ca")).await, "UnknownIssuer");

    // The gateway's pool refuses the same way: the request answers 503, the database is never reached.
    let app = TestApp::spawn_on(&wrong_name, |settings| {
        settings.set("DATABASE_TIMEOUT_MS", 2000);
    })
    .await;
    let response = app.ping(Some("Bearer pk_api_0123456789abcdef0123456789abcdef.secret")).await;
    response.assert_error(503, "try_again", None);
    app.shutdown().await;
}

#[tokio::test]
async fn weaker_modes_do_what_libpq_does_and_disable_fails_with_a_clear_message() {
    let world = TlsCluster::start().await;
    // require: encrypted, the certificate unchecked (its name is not 127.0.0.1, its CA unknown).
    assert_eq!(session_is_tls(&world.url("127.0.0.1", "sslmode=require")).await, Ok(true));
    // No sslmode (prefer): TLS when the server offers it.
    assert_eq!(session_is_tls(&world.url("127.0.0.1", "")).await, Ok(true));
    // As in libpq, a root file given with require checks the chain.
    let require_foreign =
        world.url("127.0.0.1", &format!("sslmode=require&sslrootcert={}", world.foreign_ca.display()));
    assert_refused(session_is_tls(&require_foreign).await, "UnknownIssuer");
    // verify-ca: the chain, not the name.
    let verify_ca = world
        .url("wrong.example.test", &format!("hostaddr=127.0.0.1&sslmode=verify-ca&sslrootcert={}", world.ca.display()));
    assert_eq!(session_is_tls(&verify_ca).await, Ok(true));
    // The key=value form reads the same.
    let key_value = format!(
        "host={SERVER_NAME} hostaddr=127.0.0.1 port={} user=postgres password={PASSWORD} dbname=postgres \
         sslmode=verify-full sslrootcert='{}'",
        world.cluster.port(),
        world.ca.display()
    );
    assert_eq!(session_is_tls(&key_value).await, Ok(true));

    let disable = world.url("127.0.0.1", "sslmode=disable");
    let message = assert_refused(gateway::migrate::run(&disable).await, "no encryption");
    assert!(message.contains("use sslmode=verify-full with sslrootcert"), "{message}");
    // What an operator running `ingest migrate` reads.
    let output = Command::new(env!("CARGO_BIN_EXE_ingest"))
        .arg("migrate")
        .env("DATABASE_URL", &disable)
        .env("LOG_LEVEL", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .await
        .expect("running ingest migrate");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("ingest: cannot connect to the database: FATAL: pg_hba.conf rejects connection"),
        "{stderr}"
    );
    assert!(stderr.contains("sslmode=disable sends none"), "{stderr}");
    assert!(!stderr.contains(PASSWORD), "{stderr}");
    // What a log line of the gateway or the worker says: the SQLSTATE and the hint, not the
    // server's message.
    let link = DatabaseLink::parse(&disable, "DATABASE_URL").unwrap();
    let error = link.connect().await.err().expect("refused");
    assert_eq!(
        link.explain_for_log(&error),
        "the server refused the connection (SQLSTATE 28000); the server takes TLS connections only, and \
         sslmode=disable sends none: use sslmode=verify-full with sslrootcert (see docs/operating.md)"
    );
}
