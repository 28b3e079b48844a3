//! The document as a page to read (`GET <root>/docs`, no credential; `ingest openapi --html` prints
//! the same page): Swagger UI's bundle and style sheet (gateway/vendor/swagger-ui, the pinned
//! release its check.sh verifies) and the document, all inline, so the page needs nothing from any
//! host, this one included, and works the same saved to a file. A reference to read, not a client:
//! "Try it out" is off (a credential typed into a page is one more place for it to leak).
//!
//! Its Content-Security-Policy says so: scripts only by the hashes of the page's two, no request
//! to any address (`img-src` and `font-src` none but `data:`, `connect-src` none at all), and
//! styles inline (Swagger UI sets some at run time). The same policy is in the page's `<meta>` (for
//! the saved file); the header adds what a `<meta>` cannot carry: that no other site may frame it.

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Swagger UI's bundle and style sheet, embedded at build time.
const BUNDLE: &str = include_str!("../../vendor/swagger-ui/swagger-ui-bundle.js");
const STYLE: &str = include_str!("../../vendor/swagger-ui/swagger-ui.css");

/// A page to read: no credential is ever typed into it, so Swagger UI's Authorize button and the
/// lock of each operation (which opens the same dialog) are not shown.
const READ_ONLY_STYLE: &str =
    ".swagger-ui .auth-wrapper, .swagger-ui .authorization__btn { display: none !important; }";

/// Swagger UI's options: no validator badge (it would ask another host), no "Try it out".
const OPTIONS: &str = r##"dom_id: "#reference", deepLinking: true, validatorUrl: null, supportedSubmitMethods: [], tryItOutEnabled: false, docExpansion: "list", defaultModelsExpandDepth: 0"##;

/// The page, made once, and the policy it is served with.
pub struct Page {
    pub html: String,
    pub content_security_policy: String,
}

/// Where the page is served: `<root>/docs`.
pub fn path(base_path: &str) -> String {
    format!("{}/docs", super::root(base_path))
}

pub fn page(document: &Value) -> Page {
    let start = format!("SwaggerUIBundle({{ spec: {}, {OPTIONS} }});", inline_json(&document.to_string()));
    let policy = policy(&[BUNDLE, &start]);
    let title = document["info"]["title"].as_str().unwrap_or("API");
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <link rel=\"icon\" href=\"data:,\">\n<title>{title}</title>\n<style>{STYLE}</style>\n<style>{READ_ONLY_STYLE}</style>\n</head>\n<body>\n\
         <div id=\"reference\"></div>\n<script>{BUNDLE}</script>\n<script>{start}</script>\n</body>\n</html>\n",
        title = escape_text(title),
    );
    Page { html, content_security_policy: format!("{policy}; frame-ancestors 'none'") }
}

/// The policy for a page whose only scripts are `scripts`, each allowed by its hash.
fn policy(scripts: &[&str]) -> String {
    let hashes: Vec<String> = scripts
        .iter()
        .map(|script| {
            let digest = Sha256::digest(script.as_bytes());
            format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest))
        })
        .collect();
    format!(
        "default-src 'none'; script-src {}; style-src 'unsafe-inline'; img-src data:; font-src data:; \
         base-uri 'none'; form-action 'none'",
        hashes.join(" ")
    )
}

/// JSON text that can stand inside a `<script>` element: a `<` (which could open `</script>` or
/// `<!--`) only occurs inside JSON strings, where `\u003c` reads the same.
fn inline_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}

fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `script` ends where the HTML parser would end it: at its own end, not at a
    /// `</script` inside it, and not later because a `<!--` left open made it read a `<script` as
    /// the start of a nested one (the HTML standard's "script data escaped" states).
    fn stands_inside_a_script_element(script: &str) -> bool {
        let lower = script.to_ascii_lowercase();
        let mut escaped = false;
        for (at, _) in lower.char_indices() {
            let rest = &lower[at..];
            if rest.starts_with("</script") {
                return false;
            }
            if rest.starts_with("<!--") {
                escaped = true;
            } else if rest.starts_with("-->") {
                escaped = false;
            } else if escaped && rest.starts_with("<script") {
                return false;
            }
        }
        !escaped
    }

    #[test]
    fn the_bundle_and_the_start_script_stand_inline_as_they_are() {
        assert!(stands_inside_a_script_element(BUNDLE));
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
        let document = serde_json::json!({"info": {"title": "A</script><!--<script>"}, "x": "-->"});
        let page = page(&document);
        let start = page.html.rsplit("\n<script>").next().unwrap();
        assert!(stands_inside_a_script_element(start.trim_end_matches("</script>\n</body>\n</html>\n")));
        assert!(page.html.contains("<title>A&lt;/script&gt;&lt;!--&lt;script&gt;</title>"));
        assert!(!stands_inside_a_script_element("a = '</SCRIPT>'"));
        assert!(!stands_inside_a_script_element("a = '<!-- <script>'"));
    }

    #[test]
    fn the_policy_allows_the_pages_two_scripts_by_their_hashes_and_nothing_from_any_address() {
        let page = page(&serde_json::json!({"info": {"title": "T"}}));
        let scripts: Vec<&str> =
            page.html.split("\n<script>").skip(1).map(|part| part.rsplit_once("</script>").unwrap().0).collect();
        assert_eq!(scripts.len(), 2);
        assert_eq!(page.content_security_policy, format!("{}; frame-ancestors 'none'", policy(&scripts)));
        assert!(page.html.contains(&format!("content=\"{}\"", policy(&scripts))));
        for directive in ["default-src 'none'", "img-src data:", "font-src data:", "base-uri 'none'"] {
            assert!(page.content_security_policy.contains(directive), "{directive}");
        }
        assert!(!page.content_security_policy.contains("http"));
        assert!(!page.content_security_policy.contains("'self'"));
    }
}
