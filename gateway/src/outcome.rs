//! What became of a request: decided once, in `crate::dispatch`, and read by match by the
//! connection (answer, or drop it), the request's log lines and the metrics.
//!
//! A step of the order of checks ends a request early with a [`Stop`]: a [`Refusal`], which is
//! the answer, or its client gone before its database call began, which gets none. A request
//! whose client went after its call began runs to its end; what it would have answered is kept
//! for the log line, which says status 499 ("client closed request", nginx's) with the answer
//! it would have had as `outcome`.

use bytes::Bytes;
use http::{Response, StatusCode};

use crate::errors::Refusal;
use crate::response::{self, Body};

/// How a step ends a request before its route answers.
#[derive(Debug)]
pub enum Stop {
    /// Refused: the refusal is the answer.
    Refused(Refusal),
    /// Its client went (it stalled or left mid-body, left while waiting for its turn or for a
    /// connection) before its database call began: given up, nothing written, no answer owed.
    ClientGone(&'static str),
}

impl From<Refusal> for Stop {
    fn from(refusal: Refusal) -> Self {
        Stop::Refused(refusal)
    }
}

/// An answer made for a request.
#[derive(Debug)]
pub struct Answered {
    pub response: Response<Body>,
    /// The refusal it is, when it is one (its cause goes to the log line).
    pub refusal: Option<Refusal>,
    /// A write's report, for its write log line.
    pub report: Option<Bytes>,
}

impl Answered {
    /// A route's or a published text's own answer.
    pub fn with(response: Response<Body>, report: Option<Bytes>) -> Answered {
        Answered { response, refusal: None, report }
    }

    /// A refusal's answer.
    pub fn refused(refusal: Refusal) -> Answered {
        Answered { response: response::error(&refusal), refusal: Some(refusal), report: None }
    }

    pub fn status(&self) -> StatusCode {
        self.response.status()
    }
}

/// What became of a request.
#[derive(Debug)]
pub enum Fate {
    /// Answered to its client.
    Answered(Answered),
    /// Its client went: before its database call began (`would_have_been` None; `cause` says
    /// where), or after, with the answer it would have had.
    ClientGone { would_have_been: Option<Answered>, cause: Option<&'static str> },
}

/// nginx's "client closed request": the status logged and counted for a request whose client went.
pub const CLIENT_CLOSED: u16 = 499;

impl Fate {
    /// The fate of the steps' result, `client_gone` telling whether the client has gone by now.
    pub fn of(steps: Result<Answered, Stop>, client_gone: bool) -> Fate {
        let answered = match steps {
            Ok(answered) => answered,
            Err(Stop::Refused(refusal)) => Answered::refused(refusal),
            Err(Stop::ClientGone(cause)) => return Fate::ClientGone { would_have_been: None, cause: Some(cause) },
        };
        if client_gone {
            Fate::ClientGone { would_have_been: Some(answered), cause: None }
        } else {
            Fate::Answered(answered)
        }
    }

    /// The answer made, whether or not anyone waits for it.
    pub fn answered_mut(&mut self) -> Option<&mut Answered> {
        match self {
            Fate::Answered(answered) | Fate::ClientGone { would_have_been: Some(answered), .. } => Some(answered),
            Fate::ClientGone { would_have_been: None, .. } => None,
        }
    }

    /// The status of the log line and the metrics: the answer's, or 499.
    pub fn status(&self) -> u16 {
        match self {
            Fate::Answered(answered) => answered.status().as_u16(),
            Fate::ClientGone { .. } => CLIENT_CLOSED,
        }
    }

    /// For a client gone after its call began, the status it would have had (the log line's
    /// `outcome`).
    pub fn would_have_been(&self) -> Option<u16> {
        match self {
            Fate::ClientGone { would_have_been: Some(answered), .. } => Some(answered.status().as_u16()),
            _ => None,
        }
    }

    /// Why, for the log line: a refusal's cause, or where a client gone was given up.
    pub fn cause(&self) -> Option<&str> {
        match self {
            Fate::ClientGone { cause: Some(cause), .. } => Some(cause),
            _ => self.answered().and_then(|answered| answered.refusal.as_ref()).and_then(Refusal::cause),
        }
    }

    /// A write's report, when the write was carried out (whether or not its client waits).
    pub fn report(&self) -> Option<&Bytes> {
        self.answered().and_then(|answered| answered.report.as_ref())
    }

    fn answered(&self) -> Option<&Answered> {
        match self {
            Fate::Answered(answered) | Fate::ClientGone { would_have_been: Some(answered), .. } => Some(answered),
            Fate::ClientGone { would_have_been: None, .. } => None,
        }
    }

    /// What the connection does: send the answer, or drop the connection (no one waits for it).
    pub fn into_answer(self) -> Result<Response<Body>, ClientGone> {
        match self {
            Fate::Answered(answered) => Ok(answered.response),
            Fate::ClientGone { .. } => Err(ClientGone),
        }
    }
}

/// The connection's error for a request whose client went: hyper drops the connection.
#[derive(Debug)]
pub struct ClientGone;

impl std::fmt::Display for ClientGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client went away before its request was answered")
    }
}

impl std::error::Error for ClientGone {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_answered_and_logged_with_its_cause() {
        let fate = Fate::of(Err(Refusal::transient("pool wait timed out").into()), false);
        assert_eq!((fate.status(), fate.would_have_been(), fate.cause()), (503, None, Some("pool wait timed out")));
        assert_eq!(fate.into_answer().unwrap().status(), StatusCode::SERVICE_UNAVAILABLE);
    }

    #[test]
    fn a_client_gone_before_its_call_gets_no_answer_and_says_where_it_was_given_up() {
        let fate = Fate::of(Err(Stop::ClientGone("waiting for its turn")), false);
        assert_eq!((fate.status(), fate.would_have_been(), fate.cause()), (499, None, Some("waiting for its turn")));
        assert!(fate.report().is_none());
        assert!(fate.into_answer().is_err());
    }

    #[test]
    fn a_client_gone_after_its_call_keeps_what_it_would_have_had_and_its_write() {
        let report = Bytes::from_static(b"{}");
        let answered = Answered::with(response::json(StatusCode::CREATED, "{}"), Some(report.clone()));
        let fate = Fate::of(Ok(answered), true);
        assert_eq!((fate.status(), fate.would_have_been(), fate.cause()), (499, Some(201), None));
        assert_eq!(fate.report(), Some(&report));
        assert!(fate.into_answer().is_err());
    }
}
