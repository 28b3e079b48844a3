//! `bench-capacity seed`: each seeded operator's credential, issued the way an owner does it in the
//! console (`console.api_credential_issue` as `authenticated`, with the owner's claims and the
//! operator as `x-tenant-id`), and, for every other operator, its webhook endpoint armed
//! (`console.webhook_endpoint_register`) at the bench's receiver. The operators themselves, their
//! lots, envelopes and bookings are bench/capacity/seed.sql's.

use std::fmt::Write as _;

use tokio_postgres::NoTls;

use crate::receiver::HOOK_HOST;

/// One seeded operator, as the load program needs it.
#[derive(Clone)]
pub struct Operator {
    pub i: u32,
    pub operator_id: String,
    pub bearer: String,
    pub armed: bool,
}

/// Whether operator `i`'s webhook endpoint is armed: half of them.
pub fn armed(i: u32) -> bool {
    i.is_multiple_of(2)
}

pub async fn issue(database_url: &str, connections: usize) -> Result<Vec<Operator>, String> {
    let (client, connection) = tokio_postgres::connect(database_url, NoTls).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let rows = client
        .query("SELECT i, operator_id::text FROM capacity.operators ORDER BY i", &[])
        .await
        .map_err(|e| e.to_string())?;
    let operators: Vec<(u32, String)> = rows.iter().map(|r| (r.get::<_, i32>(0) as u32, r.get(1))).collect();
    let mut tasks = Vec::new();
    for part in 0..connections {
        let mine: Vec<(u32, String)> = operators.iter().skip(part).step_by(connections).cloned().collect();
        let url = database_url.to_string();
        tasks.push(tokio::spawn(async move { issue_part(&url, mine).await }));
    }
    let mut issued = Vec::new();
    for task in tasks {
        issued.extend(task.await.map_err(|e| e.to_string())??);
    }
    issued.sort_by_key(|o| o.i);
    Ok(issued)
}

async fn issue_part(database_url: &str, operators: Vec<(u32, String)>) -> Result<Vec<Operator>, String> {
    let (mut client, connection) = tokio_postgres::connect(database_url, NoTls).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let mut issued = Vec::new();
    for (i, operator_id) in operators {
        let transaction = client.transaction().await.map_err(|e| e.to_string())?;
        let claims = format!(r#"{{"sub": "00000000-0000-4000-8000-{i:012x}", "role": "authenticated"}}"#);
        let headers = format!(r#"{{"x-tenant-id": "{operator_id}"}}"#);
        transaction
            .execute(
                "SELECT set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true), \
                 set_config('request.headers', $2, true)",
                &[&claims, &headers],
            )
            .await
            .map_err(|e| e.to_string())?;
        let bearer: String = transaction
            .query_one(
                "SELECT key_id || '.' || secret FROM console.api_credential_issue('capacity', \
                 ARRAY['read_supply', 'write_supply', 'read_bookings'])",
                &[],
            )
            .await
            .map_err(|e| e.to_string())?
            .get(0);
        if armed(i) {
            let mut secret = String::from("whsec_");
            for byte in i.to_be_bytes().iter().cycle().take(32) {
                let _ = write!(secret, "{byte:02x}");
            }
            let url = format!("https://{HOOK_HOST}/op/{i}");
            transaction
                .execute("SELECT console.webhook_endpoint_register($1, $2)", &[&url, &secret])
                .await
                .map_err(|e| e.to_string())?;
        }
        transaction.commit().await.map_err(|e| e.to_string())?;
        issued.push(Operator { i, operator_id, bearer, armed: armed(i) });
    }
    Ok(issued)
}

/// The file the run reads: `i<TAB>operator_id<TAB>bearer<TAB>armed` a line.
pub fn write(path: &str, operators: &[Operator]) -> Result<(), String> {
    let text: String =
        operators.iter().map(|o| format!("{}\t{}\t{}\t{}\n", o.i, o.operator_id, o.bearer, o.armed)).collect();
    std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
}

pub fn read(path: &str) -> Result<Vec<Operator>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                [i, operator_id, bearer, armed] => Ok(Operator {
                    i: i.parse().map_err(|_| format!("{path}: {line}"))?,
                    operator_id: operator_id.to_string(),
                    bearer: bearer.to_string(),
                    armed: armed == "true",
                }),
                _ => Err(format!("{path}: {line}")),
            }
        })
        .collect()
}
