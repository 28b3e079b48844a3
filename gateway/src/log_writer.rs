//! The writer thread behind standard output's log lines: the runtime's threads append each line to
//! a shared buffer and never wait for the output; one thread writes what has gathered.
//!
//! Lossless and bounded: past [`MAX_PENDING_LINES`] lines waiting, the writer of a new line waits
//! for room (back-pressure) instead of dropping it. Batched: the thread writes at most every
//! [`GATHER`] what gathered meanwhile (at once when a quarter of the bound is waiting), so a busy
//! gateway pays one `write` per batch and no thread wake-up per line. A line handed over a thread
//! channel one at a time cost the thread a wake-up, a spin and a `write` each: a large share of the
//! gateway's own CPU a request (bench/FINDINGS.md, "Nothing rebuilt per request that can be sent
//! as it is").

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Lines waiting at most, before writers of new lines wait for the thread.
pub const MAX_PENDING_LINES: usize = 8192;
/// The longest a line waits to be written while the output keeps up.
pub const GATHER: Duration = Duration::from_millis(10);
/// How long dropping the guard waits for what is still buffered to be written.
const FINAL_FLUSH: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Pending {
    text: Vec<u8>,
    lines: usize,
    /// The thread waits for a first line with no deadline: the next line wakes it.
    idle: bool,
    /// The guard was dropped: write what is left and stop.
    closing: bool,
    /// The thread has stopped.
    done: bool,
}

#[derive(Default)]
struct Shared {
    pending: Mutex<Pending>,
    /// The thread's: a first line arrived, the buffer is filling up, or the guard was dropped.
    wake: Condvar,
    /// The writers': the thread took the pending lines (room again), or stopped.
    taken: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A handle that appends lines to the buffer; each `write` call is one line (or several whole ones).
#[derive(Clone)]
pub struct LogWriter(Arc<Shared>);

impl Write for LogWriter {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        let shared = &self.0;
        let mut pending = shared.lock();
        while pending.lines >= MAX_PENDING_LINES && !pending.done {
            pending = shared.taken.wait(pending).unwrap_or_else(|e| e.into_inner());
        }
        if pending.done {
            return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the log writer has stopped"));
        }
        pending.text.extend_from_slice(line);
        pending.lines += 1;
        if pending.idle || pending.lines == MAX_PENDING_LINES / 4 {
            pending.idle = false;
            shared.wake.notify_one();
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Keep it while the process runs: dropping it writes out what is buffered (waiting at most a
/// second for the output) and stops the thread.
pub struct WriterGuard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        let mut pending = self.shared.lock();
        pending.closing = true;
        self.shared.wake.notify_one();
        let (pending, _) = self
            .shared
            .taken
            .wait_timeout_while(pending, FINAL_FLUSH, |pending| !pending.done)
            .unwrap_or_else(|e| e.into_inner());
        let done = pending.done;
        drop(pending);
        if done {
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

/// Starts the thread that writes to `out`.
pub fn spawn<W: Write + Send + 'static>(out: W) -> (LogWriter, WriterGuard) {
    let shared = Arc::new(Shared::default());
    let thread = std::thread::Builder::new()
        .name("ingest-log-writer".into())
        .spawn({
            let shared = shared.clone();
            move || run(&shared, out)
        })
        .expect("the log writer thread starts");
    (LogWriter(shared.clone()), WriterGuard { shared, thread: Some(thread) })
}

fn run<W: Write>(shared: &Shared, mut out: W) {
    let mut batch = Vec::new();
    loop {
        let mut pending = shared.lock();
        // Nothing waiting: sleep until a line comes (no wake-ups while the gateway is idle).
        while pending.lines == 0 && !pending.closing {
            pending.idle = true;
            pending = shared.wake.wait(pending).unwrap_or_else(|e| e.into_inner());
        }
        pending.idle = false;
        // Let more lines gather, unless the buffer is filling up or the guard was dropped.
        if !pending.closing && pending.lines < MAX_PENDING_LINES / 4 {
            pending = shared
                .wake
                .wait_timeout_while(pending, GATHER, |p| !p.closing && p.lines < MAX_PENDING_LINES / 4)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        std::mem::swap(&mut batch, &mut pending.text);
        pending.lines = 0;
        let closing = pending.closing;
        drop(pending);
        shared.taken.notify_all();
        // An output that fails loses these lines, as a failed stdout would anyway; writing goes on.
        let _ = out.write_all(&batch).and_then(|()| out.flush());
        batch.clear();
        if closing {
            let mut pending = shared.lock();
            if pending.lines == 0 {
                pending.done = true;
                drop(pending);
                shared.taken.notify_all();
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// An output that takes 5 ms per write, and keeps what it got.
    struct SlowOut(Arc<Mutex<Vec<u8>>>);

    impl Write for SlowOut {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            std::thread::sleep(Duration::from_millis(5));
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn lines(out: &Mutex<Vec<u8>>) -> Vec<String> {
        String::from_utf8(out.lock().unwrap().clone()).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn a_slow_output_never_stalls_the_writer_of_a_line_and_loses_no_line() {
        let out = Arc::new(Mutex::new(Vec::new()));
        let (writer, guard) = spawn(SlowOut(out.clone()));
        let started = Instant::now();
        for n in 0..100 {
            writer.clone().write_all(format!("line {n}\n").as_bytes()).unwrap();
        }
        // Written straight to this output, 100 lines would take half a second.
        assert!(started.elapsed() < Duration::from_millis(100), "writing took {:?}", started.elapsed());
        drop(guard);
        let expected: Vec<String> = (0..100).map(|n| format!("line {n}")).collect();
        assert_eq!(lines(&out), expected, "every line reached the output, in order, once the guard was dropped");
    }

    #[test]
    fn lines_reach_the_output_without_the_guard_being_dropped() {
        let out = Arc::new(Mutex::new(Vec::new()));
        let (mut writer, _guard) = spawn(SlowOut(out.clone()));
        writer.write_all(b"first\n").unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while lines(&out).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(lines(&out), ["first"]);
        // Idle since: the next line wakes the thread again.
        std::thread::sleep(GATHER * 3);
        writer.write_all(b"second\n").unwrap();
        while lines(&out).len() < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(lines(&out), ["first", "second"]);
    }

    #[test]
    fn a_full_buffer_makes_the_writer_of_a_line_wait_for_room_instead_of_dropping_it() {
        let out = Arc::new(Mutex::new(Vec::new()));
        let (writer, guard) = spawn(SlowOut(out.clone()));
        let writers: Vec<_> = (0..4)
            .map(|t| {
                let mut writer = writer.clone();
                std::thread::spawn(move || {
                    for n in 0..MAX_PENDING_LINES {
                        writer.write_all(format!("{t} {n}\n").as_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        drop(guard);
        let written = lines(&out);
        assert_eq!(written.len(), 4 * MAX_PENDING_LINES);
        for t in 0..4 {
            let own: Vec<String> = written.iter().filter(|l| l.starts_with(&format!("{t} "))).cloned().collect();
            let expected: Vec<String> = (0..MAX_PENDING_LINES).map(|n| format!("{t} {n}")).collect();
            assert_eq!(own, expected, "each writer's lines in its order");
        }
    }
}
