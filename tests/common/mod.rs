//! Helpers shared by the integration tests: a session whose output is
//! captured, answer collection through the embedding API, and running the
//! built binary with arguments and standard input.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;

use lolli::engine::Host;
use lolli::{Options, Session};

/// A host that appends everything written to a shared string and reads
/// lines from a queue, so a test can look at the output after the session
/// has taken the host.
#[derive(Clone, Default)]
pub struct Capture {
    pub out: Rc<RefCell<String>>,
    pub input: Rc<RefCell<VecDeque<String>>>,
}

impl Host for Capture {
    fn write(&mut self, text: &str) {
        self.out.borrow_mut().push_str(text);
    }
    fn read_line(&mut self) -> Option<String> {
        self.input.borrow_mut().pop_front()
    }
}

/// A session with default options whose output goes to the returned capture.
pub fn session() -> (Session, Capture) {
    session_with(Options::default())
}

/// A session with the given options whose output goes to the returned capture.
pub fn session_with(options: Options) -> (Session, Capture) {
    let cap = Capture::default();
    let s = Session::with_options(options, Box::new(cap.clone()));
    (s, cap)
}

/// Every answer of `goal` against `program`, printed as the CLI prints them.
pub fn answers(program: &str, goal: &str) -> Vec<String> {
    let (mut s, _) = session();
    if !program.is_empty() {
        if let Err(e) = s.load_str("test", program) {
            panic!("program did not load: {}", s.render(&e));
        }
    }
    all_answers(&mut s, goal)
}

/// Every answer of `goal` in a session.
pub fn all_answers(s: &mut Session, goal: &str) -> Vec<String> {
    let mut q = match s.query(goal) {
        Ok(q) => q,
        Err(e) => panic!("{goal:?} did not parse: {e:?}"),
    };
    let mut out = Vec::new();
    loop {
        match q.next_answer() {
            Ok(Some(a)) => out.push(a.to_string()),
            Ok(None) => break,
            Err(e) => panic!("{goal:?} raised an error: {e:?}"),
        }
    }
    out
}

/// The number of proofs of a goal with no program.
pub fn count(goal: &str) -> usize {
    answers("", goal).len()
}

/// What a run of the binary produced.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Run the `lolli` binary in `dir` with `args` and `stdin`; `LOLLI_PATH` is
/// removed from its environment unless given in `env`.
pub fn lolli_in(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lolli"));
    cmd.current_dir(dir)
        .args(args)
        .env_remove("LOLLI_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the lolli binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin accepts the input");
    let out = child.wait_with_output().expect("lolli finishes");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Run the binary in the crate root with `args` and empty stdin.
pub fn lolli(args: &[&str]) -> Run {
    lolli_in(&crate_root(), args, "", &[])
}

/// Shorthand for a successful run's expected result.
pub fn ok(stdout: &str) -> Run {
    Run {
        stdout: stdout.to_string(),
        stderr: String::new(),
        code: 0,
    }
}

/// The crate root (where `programs/` lives).
pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh empty directory for one test, in the system temp directory,
/// named `lolli-test-<pid>-<n>-<name>`.
///
/// The returned guard removes the directory and everything in it when it
/// drops, at the end of the test and also when the test fails (the panic
/// unwinds through it), so runs leave nothing behind in the temp directory
/// (they used to: over a thousand directories had piled up).  Keep the
/// guard in a variable for as long as its files are used:
/// `temp_dir("x").join("f")` alone drops it, and deletes the directory,
/// at the end of the statement.
pub fn temp_dir(name: &str) -> TempDir {
    // Unique per call: tests of one binary run in parallel, and two that
    // asked for the same name removed each other's files.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("lolli-test-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).expect("temp dir is created");
    TempDir { path }
}

/// A directory made by [`temp_dir`], removed with its contents when this
/// guard drops (even while a failing test unwinds); it derefs to its path.
#[must_use = "the directory is removed as soon as the guard drops"]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Errors are ignored: a test's result must not depend on its
        // clean-up, and a panic here while unwinding would abort.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Write a file (creating its directory).
pub fn write_file(path: &Path, text: &str) {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).expect("directory is created");
    }
    std::fs::write(path, text).expect("file is written");
}

/// The sample programs, `programs/*.lolli`, in name order.
pub fn sample_programs() -> Vec<PathBuf> {
    let dir = crate_root().join("programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("programs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "lolli"))
        .collect();
    files.sort();
    files
}

/// A goal of a program's sample session (see `tests/programs.rs`): `%?`
/// (first answer) or `%*` (every answer), `!` after it for a goal run
/// only in release builds, and the `%=` lines that follow it.
pub struct SampleGoal {
    /// Its line in the file, from 1.
    pub line: usize,
    pub all: bool,
    pub release_only: bool,
    pub goal: String,
    pub expected: Vec<String>,
}

/// The sample session written in a program's comments.
pub fn sample_goals(text: &str) -> Vec<SampleGoal> {
    let mut out: Vec<SampleGoal> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let (all, release_only, goal) = if let Some(g) = line.strip_prefix("%? ") {
            (false, false, g)
        } else if let Some(g) = line.strip_prefix("%* ") {
            (true, false, g)
        } else if let Some(g) = line.strip_prefix("%?! ") {
            (false, true, g)
        } else if let Some(g) = line.strip_prefix("%*! ") {
            (true, true, g)
        } else if let Some(e) = line.strip_prefix("%=") {
            let e = e.strip_prefix(' ').unwrap_or(e);
            match out.last_mut() {
                Some(c) => c.expected.push(e.to_string()),
                None => panic!("line {}: expected output before any goal", i + 1),
            }
            continue;
        } else {
            continue;
        };
        out.push(SampleGoal {
            line: i + 1,
            all,
            release_only,
            goal: goal.trim().to_string(),
            expected: Vec::new(),
        });
    }
    out
}
