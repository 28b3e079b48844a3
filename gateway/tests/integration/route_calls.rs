//! Every database call the route table declares (`gateway::calls`) against its function in the
//! migrated database: one function of that name, taking exactly the declared parameters, by name,
//! type and order, and answering `(status integer, body)`; and the statement the gateway makes of
//! it prepares as the gateway's role with those types. A function whose signature changed without
//! the route table following fails here, not in production.

use gateway::calls::Call;
use gateway::routes::ROUTES;
use tokio_postgres::types::Type;

use crate::common::{connect, test_database_url};

/// Every call of the table: each operation's, and its standby's.
fn declared_calls() -> Vec<Call> {
    let mut calls = Vec::new();
    for spec in ROUTES {
        for operation in spec.operations {
            calls.push(operation.call);
            if let Some(standby) = &operation.standby {
                calls.push(standby.assertion);
                calls.push(standby.page);
            }
        }
    }
    calls
}

/// The function's parameters in order: (name, type oid, mode `i`/`o`/…).
const PARAMETERS: &str = "
SELECT a.name, a.type, a.mode::text
  FROM pg_catalog.pg_proc AS p,
       unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
              p.proargnames,
              coalesce(p.proargmodes, array_fill('i'::\"char\", ARRAY[p.pronargs::integer])))
           WITH ORDINALITY AS a(type, name, mode, n)
 WHERE p.oid = $1::text::regproc
 ORDER BY a.n";

#[tokio::test]
async fn every_declared_call_matches_its_functions_signature_and_prepares_as_the_gateway() {
    let admin = connect(test_database_url()).await;
    let calls = declared_calls();
    assert!(calls.len() >= 9, "every route's call, and the standby's two");
    for call in &calls {
        let (schema, name) = call.function.split_once('.').expect("a qualified name");
        let overloads: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_catalog.pg_proc WHERE pronamespace = $1::text::regnamespace AND proname = $2",
                &[&schema, &name],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(overloads, 1, "{} is one function, not overloaded", call.function);
        let parameters = admin.query(PARAMETERS, &[&call.function]).await.unwrap();
        let of_mode = |mode: &str| -> Vec<(String, u32)> {
            parameters
                .iter()
                .filter(|row| row.get::<_, String>(2) == mode)
                .map(|row| (row.get::<_, String>(0), row.get::<_, u32>(1)))
                .collect()
        };
        let declared: Vec<(String, u32)> =
            call.args.iter().map(|arg| arg.parameter()).map(|(name, ty)| (name, ty.oid())).collect();
        assert_eq!(of_mode("i"), declared, "{}: its parameters, as the route table declares them", call.function);
        let answers = of_mode("o");
        let names: Vec<&str> = answers.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["status", "body"], "{} answers (status, body)", call.function);
        assert_eq!(answers[0].1, Type::INT4.oid());
        assert!(
            [Type::JSONB.oid(), Type::TEXT.oid()].contains(&answers[1].1),
            "{}: body is jsonb or text",
            call.function
        );
    }

    // The statements as the gateway makes and prepares them, as its role.
    admin.batch_execute("SET ROLE ingest_gateway").await.unwrap();
    for call in &calls {
        let statement = admin.prepare(&call.sql()).await.unwrap_or_else(|e| panic!("{}: {e}", call.sql()));
        let declared: Vec<Type> = call.args.iter().map(|arg| arg.parameter().1).collect();
        assert_eq!(statement.params(), declared.as_slice(), "{}", call.sql());
        let columns: Vec<&Type> = statement.columns().iter().map(|column| column.type_()).collect();
        assert_eq!(columns, [&Type::INT4, &Type::TEXT], "{}", call.sql());
    }
}
