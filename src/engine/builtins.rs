//! The implementations of the built-in predicates (the registry is
//! [`crate::builtins`]).  Each either succeeds like `true` (consuming
//! nothing), fails, raises a runtime error, runs a goal in the current
//! context, or asks the host for a top-level action.

use std::io::BufReader;

use super::machine::{Event, Machine, Rule};
use crate::builtins::Builtin;
use crate::diagnostics::RuntimeError;
use crate::term::{sym, Addr, Cell, SymId};

type Step = Result<bool, RuntimeError>;

/// How deep [`Machine::eval`] nests by recursion before it switches to
/// work stacks (bounding the Rust stack it uses).
const EVAL_DEPTH: u32 = 64;

impl Machine {
    /// Run built-in `b` on goal `g` (arguments from `args`); with a
    /// tracer installed, the call and its failure are reported.
    pub(crate) fn builtin(
        &mut self,
        b: Builtin,
        g: Cell,
        args: Addr,
        parent: u32,
        origin: u32,
    ) -> Step {
        if self.tracer.is_some() {
            return self.traced_builtin(b, g, args, parent, origin);
        }
        self.run_builtin(b, g, args, parent, origin)
    }

    /// [`Self::builtin`] with a tracer installed.
    #[cold]
    #[inline(never)]
    fn traced_builtin(
        &mut self,
        b: Builtin,
        g: Cell,
        args: Addr,
        parent: u32,
        origin: u32,
    ) -> Step {
        use crate::engine::trace::TraceKind;
        self.trace(TraceKind::Call, g, String::new());
        let ok = self.run_builtin(b, g, args, parent, origin)?;
        if !ok {
            self.trace(TraceKind::Fail, g, String::new());
        }
        Ok(ok)
    }

    fn run_builtin(&mut self, b: Builtin, g: Cell, args: Addr, parent: u32, origin: u32) -> Step {
        let arg = |m: &Machine, i: u32| m.store.heap.get(Addr(args.0 + i));
        let done = |m: &mut Machine| {
            m.proof_node(parent, Rule::Builtin, g);
            Ok(true)
        };
        match b {
            Builtin::Write | Builtin::WriteSans | Builtin::WriteClause | Builtin::WriteRaw => {
                let t = arg(self, 0);
                let text = {
                    let p = crate::pretty::Printer::new(self);
                    match b {
                        Builtin::Write => p.term(t),
                        Builtin::WriteSans => p.term_unquoted(t),
                        Builtin::WriteClause => format!("{}.\n", p.term(t)),
                        _ => p.raw(t),
                    }
                };
                self.emit(&text).map_err(|m| self.error_at(m, g, origin))?;
                done(self)
            }
            Builtin::Nl => {
                self.emit("\n").map_err(|m| self.error_at(m, g, origin))?;
                done(self)
            }
            Builtin::Read => {
                let t = self.read_term(g, origin)?;
                let target = arg(self, 0);
                if !self.store.unify(target, t) {
                    return Ok(false);
                }
                done(self)
            }
            Builtin::Telling | Builtin::Seeing => {
                let name = self.string_arg(arg(self, 0), g, origin, "file name")?;
                let goal = arg(self, 1);
                let node = self.proof_node(parent, Rule::Builtin, g);
                if b == Builtin::Telling {
                    let file = std::fs::File::create(&name).map_err(|e| {
                        self.error_at(format!("cannot open `{name}` for writing: {e}"), g, origin)
                    })?;
                    let prev = self.push_output(name, Box::new(std::io::BufWriter::new(file)));
                    self.then_restore_output(prev, g, origin);
                } else {
                    let file = std::fs::File::open(&name)
                        .and_then(|f| match f.metadata()?.is_dir() {
                            true => Err(std::io::Error::other("it is a directory")),
                            false => Ok(f),
                        })
                        .map_err(|e| {
                            self.error_at(
                                format!("cannot open `{name}` for reading: {e}"),
                                g,
                                origin,
                            )
                        })?;
                    let prev = self.push_input(Box::new(BufReader::new(file)));
                    self.then_restore_input(prev);
                }
                self.then_solve(goal, node, origin);
                Ok(true)
            }
            Builtin::Timing => {
                let (goal, var) = (arg(self, 0), arg(self, 1));
                let node = self.proof_node(parent, Rule::Builtin, g);
                self.then_timing(var);
                self.then_solve(goal, node, origin);
                Ok(true)
            }
            Builtin::Load => {
                let m = arg(self, 0);
                let goal = self
                    .store
                    .heap
                    .new_struct(sym::LOAD, &[m, Cell::Atom(sym::TOP)]);
                self.then_solve(goal, parent, origin);
                Ok(true)
            }
            Builtin::Cd => {
                let dir = self.string_arg(arg(self, 0), g, origin, "directory name")?;
                std::env::set_current_dir(&dir).map_err(|e| {
                    self.error_at(
                        format!("cannot change directory to `{dir}`: {e}"),
                        g,
                        origin,
                    )
                })?;
                done(self)
            }
            Builtin::System => {
                if !self.options.allow_system {
                    return Err(self
                        .error_at("`system` is disabled", g, origin)
                        .note("run lolli with --allow-system to let programs run shell commands"));
                }
                let cmd = self.string_arg(arg(self, 0), g, origin, "command")?;
                // The command's output follows what the program printed.
                self.host.flush();
                let child = std::process::Command::new("sh")
                    .arg("-c")
                    .arg(&cmd)
                    .spawn()
                    .map_err(|e| self.error_at(format!("cannot run `{cmd}`: {e}"), g, origin))?;
                let status = self.wait_for(child, &cmd).map_err(|e| {
                    let mut named = self.error_at(e.message, g, origin);
                    named.notes = e.notes;
                    named
                })?;
                let code = status.code().unwrap_or(-1) as i64;
                if !self.store.unify(arg(self, 1), Cell::Int(code)) {
                    return Ok(false);
                }
                done(self)
            }
            Builtin::Findall => self.findall(g, args, parent, origin),
            Builtin::Count => self.count(g, args, parent, origin),
            Builtin::Not => self.not(g, args, parent, origin),
            Builtin::Once => self.once(g, args, parent, origin),
            Builtin::Between => self.between(g, args, parent, origin),
            Builtin::Top => self.control(Event::Top),
            Builtin::Pop => self.control(Event::Pop),
            Builtin::PopAll => self.control(Event::PopAll),
            Builtin::Abort => self.control(Event::Abort),
            Builtin::Bye => self.control(Event::Bye),
            Builtin::Var => {
                if matches!(self.store.deref(arg(self, 0)), Cell::Ref(_)) {
                    done(self)
                } else {
                    Ok(false)
                }
            }
            Builtin::NonVar => {
                if matches!(self.store.deref(arg(self, 0)), Cell::Ref(_)) {
                    Ok(false)
                } else {
                    done(self)
                }
            }
            Builtin::Explode | Builtin::ExplodeWords => {
                let (s, l) = (self.store.deref(arg(self, 0)), arg(self, 1));
                match s {
                    Cell::Str(id) => {
                        let text = self.symbols.string(id).to_string();
                        let parts: Vec<String> = if b == Builtin::Explode {
                            text.chars().map(|c| c.to_string()).collect()
                        } else {
                            text.split([' ', '\t'])
                                .filter(|w| !w.is_empty())
                                .map(String::from)
                                .collect()
                        };
                        let mut list = Cell::Atom(sym::NIL);
                        for p in parts.iter().rev() {
                            let a = Cell::Atom(self.symbols.intern(p));
                            list = self.store.heap.new_struct(sym::CONS, &[a, list]);
                        }
                        if !self.store.unify(l, list) {
                            return Ok(false);
                        }
                        done(self)
                    }
                    Cell::Ref(_) => {
                        let mut words = Vec::new();
                        let mut c = self.store.deref(l);
                        loop {
                            match self.store.heap.functor(c) {
                                Some((f, 0, _)) if f == sym::NIL => break,
                                Some((f, 2, a)) if f == sym::CONS => {
                                    match self.store.deref(self.store.heap.get(a)) {
                                        Cell::Atom(w) => {
                                            words.push(self.symbols.name(w).to_string())
                                        }
                                        other => {
                                            // (A `forall` constant prints
                                            // like a name but is none.)
                                            let what = match other {
                                                Cell::Eigen(_) => {
                                                    "a constant made by `forall`, not a name"
                                                }
                                                _ => "not a name",
                                            };
                                            return Err(self.error_at(
                                                format!(
                                                    "the list holds `{}`, which is {what}",
                                                    self.show(other)
                                                ),
                                                g,
                                                origin,
                                            ));
                                        }
                                    }
                                    c = self.store.deref(self.store.heap.get(Addr(a.0 + 1)));
                                }
                                _ => {
                                    return Err(self.error_at(
                                        "both arguments are unbound, or the second is not a list",
                                        g,
                                        origin,
                                    ))
                                }
                            }
                        }
                        let text = if b == Builtin::Explode {
                            words.concat()
                        } else {
                            words.join(" ")
                        };
                        let sid = self.symbols.intern_str(&text);
                        if !self.store.unify(s, Cell::Str(sid)) {
                            return Ok(false);
                        }
                        done(self)
                    }
                    other => Err(self.error_at(
                        format!("`{}` is not a string", self.show(other)),
                        g,
                        origin,
                    )),
                }
            }
            Builtin::Generalize => {
                let t = arg(self, 0);
                let gen = super::generalize::generalize(self, t);
                if !self.store.unify(arg(self, 1), gen) {
                    return Ok(false);
                }
                done(self)
            }
            Builtin::Is => {
                let v = self.eval(arg(self, 1), g, origin)?;
                if !self.store.unify(arg(self, 0), Cell::Int(v)) {
                    return Ok(false);
                }
                done(self)
            }
            Builtin::Unify => {
                if !self.store.unify(arg(self, 0), arg(self, 1)) {
                    return Ok(false);
                }
                done(self)
            }
            Builtin::ArithEq
            | Builtin::ArithNe
            | Builtin::Lt
            | Builtin::Gt
            | Builtin::Le
            | Builtin::Ge => {
                let x = self.eval(arg(self, 0), g, origin)?;
                let y = self.eval(arg(self, 1), g, origin)?;
                let ok = match b {
                    Builtin::ArithEq => x == y,
                    Builtin::ArithNe => x != y,
                    Builtin::Lt => x < y,
                    Builtin::Gt => x > y,
                    Builtin::Le => x <= y,
                    _ => x >= y,
                };
                if ok {
                    done(self)
                } else {
                    Ok(false)
                }
            }
        }
    }

    fn control(&mut self, e: Event) -> Step {
        self.pending = Some(e);
        Ok(true)
    }

    fn string_arg(
        &self,
        c: Cell,
        g: Cell,
        origin: u32,
        what: &str,
    ) -> Result<String, RuntimeError> {
        match self.store.deref(c) {
            Cell::Str(s) => Ok(self.symbols.string(s).to_string()),
            Cell::Ref(_) => {
                Err(self.error_at(format!("the {what} is an unbound variable"), g, origin))
            }
            other => Err(self
                .error_at(
                    format!("the {what} must be a string, not `{}`", self.show(other)),
                    g,
                    origin,
                )
                .note("write it in double quotes, like \"out.txt\"")),
        }
    }

    /// Evaluate an arithmetic expression, with overflow and division checks.
    ///
    /// Expressions nested up to [`EVAL_DEPTH`] levels (all but generated
    /// ones) are evaluated by recursion, with no allocation; a deeper one
    /// is evaluated again from the start with work stacks, in the same
    /// order, so its errors are the same either way.
    pub(crate) fn eval(&self, e: Cell, g: Cell, origin: u32) -> Result<i64, RuntimeError> {
        // The common shapes, a number or one operation on two numbers
        // (`N - 1`), without a call.
        match self.store.deref(e) {
            Cell::Int(i) => return Ok(i),
            Cell::Struct(a) => {
                if let Cell::Functor(f, 2) = self.store.heap.get(a) {
                    let x = self.store.deref(self.store.heap.arg(a, 0));
                    let y = self.store.deref(self.store.heap.arg(a, 1));
                    if let (Cell::Int(x), Cell::Int(y), true) = (x, y, is_arith(f)) {
                        return self.arith(f, x, y, g, origin);
                    }
                }
            }
            _ => {}
        }
        match self.eval_nested(e, EVAL_DEPTH, g, origin)? {
            Some(v) => Ok(v),
            None => self.eval_deep(e, g, origin),
        }
    }

    /// [`Self::eval`] by recursion, at most `depth` operations deep; `None`
    /// (and no error found so far) for an expression deeper than that.
    fn eval_nested(
        &self,
        e: Cell,
        depth: u32,
        g: Cell,
        origin: u32,
    ) -> Result<Option<i64>, RuntimeError> {
        match self.store.deref(e) {
            Cell::Int(i) => Ok(Some(i)),
            c @ Cell::Struct(a) => match self.store.heap.get(a) {
                Cell::Functor(f, 2) if is_arith(f) => {
                    if depth == 0 {
                        return Ok(None);
                    }
                    let (l, r) = (self.store.heap.arg(a, 0), self.store.heap.arg(a, 1));
                    let Some(x) = self.eval_nested(l, depth - 1, g, origin)? else {
                        return Ok(None);
                    };
                    let Some(y) = self.eval_nested(r, depth - 1, g, origin)? else {
                        return Ok(None);
                    };
                    self.arith(f, x, y, g, origin).map(Some)
                }
                _ => Err(self.not_an_expression(c, g, origin)),
            },
            other => Err(self.not_a_number(other, g, origin)),
        }
    }

    /// [`Self::eval`] with work stacks (post-order), for any depth.
    fn eval_deep(&self, e: Cell, g: Cell, origin: u32) -> Result<i64, RuntimeError> {
        enum Task {
            Eval(Cell),
            Apply(crate::term::SymId),
        }
        let mut tasks = vec![Task::Eval(e)];
        let mut values: Vec<i64> = Vec::new();
        while let Some(t) = tasks.pop() {
            match t {
                Task::Eval(c) => match self.store.deref(c) {
                    Cell::Int(i) => values.push(i),
                    c @ Cell::Struct(a) => match self.store.heap.get(a) {
                        Cell::Functor(f, 2) if is_arith(f) => {
                            tasks.push(Task::Apply(f));
                            tasks.push(Task::Eval(self.store.heap.get(Addr(a.0 + 2))));
                            tasks.push(Task::Eval(self.store.heap.get(Addr(a.0 + 1))));
                        }
                        _ => return Err(self.not_an_expression(c, g, origin)),
                    },
                    other => return Err(self.not_a_number(other, g, origin)),
                },
                Task::Apply(f) => {
                    let (Some(y), Some(x)) = (values.pop(), values.pop()) else {
                        return Err(self.error_at("malformed expression", g, origin));
                    };
                    values.push(self.arith(f, x, y, g, origin)?);
                }
            }
        }
        values
            .pop()
            .ok_or_else(|| self.error_at("malformed expression", g, origin))
    }

    /// The error for a compound term that is not an arithmetic operation.
    fn not_an_expression(&self, c: Cell, g: Cell, origin: u32) -> RuntimeError {
        let e = self.error_at(
            format!(
                "`{}` is not a number or an arithmetic expression",
                self.show(c)
            ),
            g,
            origin,
        );
        // `N mod 2` reads as the value of `N` applied to `mod` and `2`, and
        // `(A + B) mod 2` as `'+' A B mod 2`: `mod` is an argument after
        // the first.
        let heap = &self.store.heap;
        let modulo = match c {
            Cell::Struct(a) => match heap.get(a) {
                Cell::Functor(_, n) => (1..n).any(|i| {
                    matches!(heap.deref(heap.arg(a, i)), Cell::Atom(m) if self.symbols.name(m) == "mod")
                }),
                _ => false,
            },
            _ => false,
        };
        if modulo {
            e.note(crate::syntax::NO_MOD)
        } else {
            e
        }
    }

    /// The error for a term that is neither a number nor a compound (an
    /// unbound variable has its own).
    fn not_a_number(&self, c: Cell, g: Cell, origin: u32) -> RuntimeError {
        if let Cell::Ref(_) = c {
            return self
                .error_at("arithmetic on an unbound variable", g, origin)
                .note("the variable must be bound to a number before it is evaluated");
        }
        self.error_at(format!("`{}` is not a number", self.show(c)), g, origin)
    }

    /// `x f y` for an arithmetic operator `f` (see [`is_arith`]).
    fn arith(&self, f: SymId, x: i64, y: i64, g: Cell, origin: u32) -> Result<i64, RuntimeError> {
        let r = if f == sym::PLUS {
            x.checked_add(y)
        } else if f == sym::MINUS {
            x.checked_sub(y)
        } else if f == sym::TIMES {
            x.checked_mul(y)
        } else {
            if y == 0 {
                return Err(self.error_at("division by zero", g, origin));
            }
            x.checked_div(y)
        };
        r.ok_or_else(|| {
            self.error_at("integer overflow", g, origin)
                .note("integers are 64-bit; the result does not fit")
        })
    }

    /// Wait for the command `system` started, checking the query's limits
    /// as the search does (Ctrl-C, `--timeout`): when one is reached the
    /// command is killed (the shell `sh -c` runs; a command it started in
    /// the background may live on) and the query stops with its error.
    fn wait_for(
        &self,
        mut child: std::process::Child,
        cmd: &str,
    ) -> Result<std::process::ExitStatus, RuntimeError> {
        // Short commands are not slowed down much, long ones not polled
        // often.
        let mut pause = std::time::Duration::from_millis(1);
        loop {
            match child.try_wait() {
                // At a terminal, Ctrl-C reaches the command too, which may
                // end before the flag is looked at below: the query stops
                // all the same.
                Ok(Some(_))
                    if self
                        .interrupt
                        .swap(false, std::sync::atomic::Ordering::Relaxed) =>
                {
                    return Err(RuntimeError::new("interrupted")
                        .note(format!("the command `{cmd}` was stopped")));
                }
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(RuntimeError::new(format!("cannot wait for `{cmd}`: {e}")));
                }
            }
            let stop = if self
                .interrupt
                .swap(false, std::sync::atomic::Ordering::Relaxed)
            {
                Some(RuntimeError::new("interrupted"))
            } else if self
                .options
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                Some(super::machine::time_limit_error())
            } else {
                None
            };
            if let Some(e) = stop {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e.note(format!("the command `{cmd}` was killed")));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(20));
        }
    }

    /// Read one term (ending with `.`) from the current input; the input
    /// after that `.` is left for the next `read`.
    fn read_term(&mut self, g: Cell, origin: u32) -> Result<Cell, RuntimeError> {
        let text = self.next_term_text().map_err(|e| {
            let mut named = self.error_at(e.message, g, origin);
            named.notes = e.notes;
            named
        })?;
        let Some(text) = text else {
            return Ok(Cell::Atom(sym::END_OF_FILE));
        };
        let ast = crate::syntax::parse_term(&text).map_err(|e| {
            self.error_at(
                format!("`read` got a term that does not parse: {}", e.message),
                g,
                origin,
            )
        })?;
        self.build_term(&ast)
            .map_err(|m| self.error_at(format!("`read`: {m}"), g, origin))
    }

    /// Build a heap term from a syntax tree (fresh variables for its variables).
    pub fn build_term(&mut self, ast: &crate::syntax::ast::Term) -> Result<Cell, String> {
        self.build_term_named(ast).map(|(c, _)| c)
    }

    /// Build a heap term from a syntax tree; also returns its named variables
    /// (name, heap variable) in order of first appearance.
    pub fn build_term_named(
        &mut self,
        ast: &crate::syntax::ast::Term,
    ) -> Result<(Cell, Vec<(String, Cell)>), String> {
        let locals: std::collections::HashMap<String, crate::term::SymId> =
            std::collections::HashMap::new();
        let compiler = crate::logic::template::Compiler::new(
            &mut self.symbols,
            &mut self.binder_names,
            &[],
            &locals,
        );
        let tpl = compiler.goal(ast).map_err(|e| e.message)?;
        let mut slots = vec![None; tpl.nslots as usize];
        // Named variables first, in slot order (= order of first appearance).
        let mut named = Vec::new();
        for (i, name) in tpl.slot_names.iter().enumerate() {
            let v = self.store.heap.new_var();
            slots[i] = Some(v);
            if name != "_" {
                named.push((name.clone(), v));
            }
        }
        let c = self.copy_template(&tpl, tpl.root, &mut slots);
        Ok((c, named))
    }
}

/// Whether `f` names one of the four arithmetic operations.
fn is_arith(f: SymId) -> bool {
    f == sym::PLUS || f == sym::MINUS || f == sym::TIMES || f == sym::DIV
}
