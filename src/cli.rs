//! The command line: `lolli [OPTIONS] [FILE]... [-e GOAL]...`.
//!
//! Exit status: 0 when every goal given with `-e` had an answer (or `--count`
//! ran), 1 when some goal had none, 2 on any error (syntax, missing module,
//! runtime error), with the message on stderr.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;

use crate::engine::{Options, StdHost};
use crate::session::{Outcome, Session};

/// Command-line arguments.
#[derive(Parser, Debug)]
#[command(
    name = "lolli",
    version,
    about = "An interpreter for Lolli, a linear logic programming language"
)]
pub struct Args {
    /// Program files to load (their LINEAR clauses become linear resources).
    pub files: Vec<PathBuf>,
    /// A goal to solve (repeatable; the final `.` is optional).
    #[arg(short = 'e', long = "eval", value_name = "GOAL")]
    pub goals: Vec<String>,
    /// Print every answer.
    #[arg(long)]
    pub all: bool,
    /// Print at most N answers.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Print only the number of answers.
    #[arg(long)]
    pub count: bool,
    /// Add a directory to the module search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Allow the `system` built-in to run shell commands.
    #[arg(long)]
    pub allow_system: bool,
    /// Stop each query after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Print the derivation of each answer (tree, json, latex or dot).
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true,
          default_missing_value = "tree", value_enum)]
    pub proof: Option<ProofFormat>,
    /// After each answer, list the uses of PRED's clauses (`name` or
    /// `name/arity`) with what each consumed and assumed.
    #[arg(long, value_name = "PRED")]
    pub moves: Option<String>,
    /// Check the derivation of every answer with the independent checker;
    /// a rejected proof is an error.
    #[arg(long)]
    pub check_proofs: bool,
}

/// How `--proof` prints derivations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProofFormat {
    /// An indented tree, one line per step.
    Tree,
    /// One JSON object per answer, on one line.
    Json,
    /// A bussproofs derivation.
    Latex,
    /// A Graphviz graph.
    Dot,
}

/// Run the command line; returns the exit status.
pub fn main() -> i32 {
    let args = Args::parse();
    run(args)
}

fn search_path(args: &Args) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = vec![PathBuf::from(".")];
    for f in &args.files {
        if let Some(d) = f.parent() {
            let d = if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d.to_path_buf()
            };
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    for d in &args.include {
        if !dirs.contains(d) {
            dirs.push(d.clone());
        }
    }
    if let Ok(p) = std::env::var("LOLLI_PATH") {
        for d in std::env::split_paths(&p) {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

/// Run with parsed arguments; returns the exit status.
pub fn run(args: Args) -> i32 {
    let options = Options {
        allow_system: args.allow_system,
        search_path: search_path(&args),
        ..Options::default()
    };
    let mut session = Session::with_options(options, Box::new(StdHost));
    for f in &args.files {
        if let Err(errs) = session.load_file(f) {
            eprint!("{}", session.render(&errs));
            return 2;
        }
    }
    if args.goals.is_empty() {
        return repl(&mut session, &args);
    }
    let mut status = 0;
    for g in &args.goals {
        match run_goal(&mut session, g, &args) {
            Ok(true) => {}
            Ok(false) => status = status.max(1),
            Err(()) => return 2,
        }
    }
    status
}

fn set_deadline(session: &mut Session, args: &Args) {
    session.machine.options.deadline = args
        .timeout
        .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
}

/// Solve one goal, printing answers as the options say.  Ok(found an answer).
fn run_goal(session: &mut Session, goal: &str, args: &Args) -> Result<bool, ()> {
    set_deadline(session, args);
    let limit = if args.count || args.all {
        usize::MAX
    } else {
        args.limit.unwrap_or(1)
    };
    let prepared = match session.prepare(goal) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", session.render(&[e]));
            return Err(());
        }
    };
    let wants_proofs = args.proof.is_some() || args.moves.is_some() || args.check_proofs;
    session.machine.options.proofs = wants_proofs;
    let mut q = session.start(prepared);
    let mut n = 0usize;
    let mut out = std::io::stdout();
    loop {
        if n >= limit {
            break;
        }
        match q.next_outcome() {
            Ok(Outcome::Answer(a)) => {
                n += 1;
                let proof = if wants_proofs { q.proof() } else { None };
                if let (true, Some(p)) = (args.check_proofs, &proof) {
                    if let Err(e) = p.check() {
                        drop(q);
                        eprintln!("error: the proof of answer {n} was rejected: {e}");
                        return Err(());
                    }
                }
                if !args.count {
                    let _ = write!(out, "{}", show_answer(&a, n, proof.as_ref(), args));
                }
            }
            Ok(Outcome::NoMore) => break,
            Ok(Outcome::Top) => {
                // A nested top level: read goals from stdin in this context.
                let stdin = std::io::stdin();
                let mut lines = stdin.lock();
                let r = nested_loop(q.session(), &mut lines, args, 1);
                return match r {
                    Loop::Error => Err(()),
                    _ => Ok(true),
                };
            }
            Ok(_) => break,
            Err(e) => {
                let text = q.session().render(&[e]);
                drop(q);
                eprint!("{text}");
                return Err(());
            }
        }
    }
    if args.count {
        let _ = writeln!(out, "{n}");
        return Ok(true);
    }
    if n == 0 {
        match args.proof {
            Some(ProofFormat::Json) => {}
            Some(ProofFormat::Latex) => {
                let _ = writeln!(out, "% no");
            }
            Some(ProofFormat::Dot) => {
                let _ = writeln!(out, "// no");
            }
            _ => {
                let _ = writeln!(out, "no");
            }
        }
    }
    Ok(n > 0)
}

/// An answer as the options ask: the bindings, then its proof and moves.
fn show_answer(
    a: &crate::session::Answer,
    number: usize,
    proof: Option<&crate::proof::Proof>,
    args: &Args,
) -> String {
    use crate::proof::{moves, print_dot, print_json, print_latex, print_tree};
    let mut text = match (args.proof, proof) {
        (Some(ProofFormat::Json), Some(p)) => format!("{}\n", print_json::json(&a.bindings, p)),
        (Some(ProofFormat::Latex), Some(p)) => print_latex::latex(&a.to_string(), p),
        (Some(ProofFormat::Dot), Some(p)) => print_dot::dot(&a.to_string(), number, p),
        (Some(ProofFormat::Tree), Some(p)) => format!("{a}\n{}", print_tree::tree(p)),
        _ => format!("{a}\n"),
    };
    if let (Some(pred), Some(p)) = (&args.moves, proof) {
        for m in moves::moves(p, pred) {
            text.push_str(&format!("{m}\n"));
        }
    }
    text
}

enum Loop {
    /// End of input or `bye`.
    Quit,
    /// `pop`: return to the level below.
    Pop,
    /// `popall`: return to the outermost level.
    PopAll,
    /// An error in non-interactive use.
    Error,
}

fn repl(session: &mut Session, args: &Args) -> i32 {
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut lines = stdin.lock();
    if interactive {
        println!(
            "lolli {} — type a goal ending with `.`; `bye.` leaves.",
            env!("CARGO_PKG_VERSION")
        );
    }
    loop {
        match nested_loop(session, &mut lines, args, 0) {
            Loop::Quit => return 0,
            Loop::Error => return 2,
            Loop::Pop | Loop::PopAll => {
                if interactive {
                    println!("You are at the outermost top level. Use `bye.` to leave.");
                }
            }
        }
    }
}

/// Read one goal (possibly several lines) from `input`; None at end of input.
fn read_goal(input: &mut dyn BufRead, prompt: &str, interactive: bool) -> Option<String> {
    let mut text = String::new();
    loop {
        if interactive {
            print!("{}", if text.is_empty() { prompt } else { "|  " });
            let _ = std::io::stdout().flush();
        }
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                return if text.trim().is_empty() {
                    None
                } else {
                    Some(text)
                };
            }
            Ok(_) => {}
        }
        text.push_str(&line);
        if text.trim().is_empty() {
            text.clear();
            continue;
        }
        if crate::syntax::is_complete(&text) {
            return Some(text);
        }
    }
}

/// A read-solve-print loop at nesting `depth`.
fn nested_loop(session: &mut Session, input: &mut dyn BufRead, args: &Args, depth: usize) -> Loop {
    let interactive = std::io::stdin().is_terminal();
    let prompt = if depth == 0 {
        "?- ".to_string()
    } else {
        format!("[{depth}] ?- ")
    };
    loop {
        let Some(goal) = read_goal(input, &prompt, interactive) else {
            return Loop::Quit;
        };
        set_deadline(session, args);
        let prepared = match session.prepare(&goal) {
            Ok(p) => p,
            Err(e) => {
                eprint!("{}", session.render(&[e]));
                if !interactive {
                    return Loop::Error;
                }
                continue;
            }
        };
        let mut q = session.start(prepared);
        let mut found = 0usize;
        loop {
            match q.next_outcome() {
                Ok(Outcome::Answer(a)) => {
                    found += 1;
                    println!("{a}");
                    let more = if args.all {
                        true
                    } else if interactive && !a.bindings.is_empty() {
                        print!("more? (; for next, Enter to stop) ");
                        let _ = std::io::stdout().flush();
                        let mut l = String::new();
                        let _ = input.read_line(&mut l);
                        l.trim_start().starts_with(';')
                    } else {
                        false
                    };
                    if !more {
                        break;
                    }
                }
                Ok(Outcome::NoMore) => {
                    if found == 0 || interactive {
                        println!("no");
                    }
                    break;
                }
                Ok(Outcome::Top) => {
                    let r = nested_loop(q.session(), input, args, depth + 1);
                    match r {
                        Loop::Pop => break,
                        Loop::PopAll if depth > 0 => return Loop::PopAll,
                        Loop::PopAll => break,
                        other => return other,
                    }
                }
                Ok(Outcome::Pop) => return Loop::Pop,
                Ok(Outcome::PopAll) => return Loop::PopAll,
                Ok(Outcome::Bye) => return Loop::Quit,
                Ok(Outcome::Abort) => {
                    println!("aborted");
                    break;
                }
                Err(e) => {
                    let text = q.session().render(&[e]);
                    eprint!("{text}");
                    if !interactive {
                        drop(q);
                        return Loop::Error;
                    }
                    break;
                }
            }
        }
    }
}
