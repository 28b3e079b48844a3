//! The route table. Paths are matched exactly under the base path, without a trailing slash.
//! A route lists its verbs; the `Allow` header is those verbs, then OPTIONS.

use http::Method;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Ping,
}

impl Route {
    /// The path template, as log lines name the route.
    pub fn template(self) -> &'static str {
        match self {
            Route::Ping => "/ping",
        }
    }

    pub fn methods(self) -> &'static [Method] {
        match self {
            Route::Ping => &[Method::GET],
        }
    }

    /// The `Allow` header: the route's verbs, then OPTIONS.
    pub fn allow(self) -> &'static str {
        match self {
            Route::Ping => "GET, OPTIONS",
        }
    }

    /// The query parameters the route accepts; any other is `invalid_query`.
    pub fn query_parameters(self) -> &'static [&'static str] {
        match self {
            Route::Ping => &[],
        }
    }
}

/// The route a request path names, or None (404). `base` is the configured base path.
pub fn match_path(base: &str, path: &str) -> Option<Route> {
    match path.strip_prefix(base)? {
        "/ping" => Some(Route::Ping),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_matches_only_exactly_under_the_base() {
        assert_eq!(match_path("/v1", "/v1/ping"), Some(Route::Ping));
        assert_eq!(match_path("/v1", "/v1/ping/"), None);
        assert_eq!(match_path("/v1", "/ping"), None);
        assert_eq!(match_path("/v1", "/v1/PING"), None);
        assert_eq!(match_path("/v1", "/v2/ping"), None);
        assert_eq!(match_path("/api/v1", "/api/v1/ping"), Some(Route::Ping));
    }

    #[test]
    fn allow_lists_the_verbs_then_options() {
        let all = [Route::Ping];
        for route in all {
            let verbs: Vec<&str> = route.methods().iter().map(Method::as_str).collect();
            assert_eq!(route.allow(), format!("{}, OPTIONS", verbs.join(", ")));
        }
    }
}
