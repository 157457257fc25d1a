//! Foreign predicates: built-ins written in Rust by an embedding program,
//! and [`Value`], the plain Rust form of terms they exchange with the engine.
//!
//! A foreign predicate is registered under a name and arity
//! ([`crate::Session::register_builtin`]).  When a goal with that name and
//! arity is called, the machine reads its arguments as values, calls the
//! closure, and:
//! - `Ok(None)`: the goal fails;
//! - `Ok(Some(values))`: each argument is unified with the value in the same
//!   position (a [`Value::Var`] in the reply stands for a fresh variable;
//!   the same name twice is the same variable); the goal succeeds once if all
//!   unify;
//! - `Err(message)`: a runtime error naming the goal.
//!
//! Resource behaviour: like `true`, a foreign predicate consumes no linear
//! resource.  A registered predicate takes precedence over clauses of the
//! same name and arity.  Invariant: the registry is empty unless an embedder
//! registered something, and the machine consults it only then.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use super::machine::{Machine, Rule};
use crate::diagnostics::RuntimeError;
use crate::term::{sym, Addr, Cell, SymId};

/// A term as a plain Rust value (see the module doc).
///
/// ```
/// use lolli::Value;
/// let v = Value::Compound("f".into(), vec![Value::Int(1), Value::Atom("a".into())]);
/// assert_eq!(v.to_string(), "f 1 a");
/// ```
///
/// A list is a value nested as deep as the list is long, so cloning,
/// comparing, hashing, printing and dropping work without recursion (and
/// `Debug` puts a new segment under the native stack when it runs low).
pub enum Value {
    /// A name (constant), such as `peg` or `nil`.
    Atom(String),
    /// An integer.
    Int(i64),
    /// A string literal.
    Str(String),
    /// An unbound variable, by its printed name (`X`, `_1`).
    Var(String),
    /// A compound term: its name and arguments (a list cell is `"::"` with two).
    Compound(String, Vec<Value>),
}

impl Value {
    /// A list value `a :: b :: ... :: nil` from its elements.
    ///
    /// ```
    /// use lolli::Value;
    /// let l = Value::list(vec![Value::Int(1), Value::Int(2)]);
    /// assert_eq!(l.to_string(), "1 :: 2 :: nil");
    /// assert_eq!(l.as_list(), Some(vec![Value::Int(1), Value::Int(2)]));
    /// ```
    pub fn list(items: Vec<Value>) -> Value {
        let mut out = Value::Atom("nil".into());
        for v in items.into_iter().rev() {
            out = Value::Compound("::".into(), vec![v, out]);
        }
        out
    }

    /// The elements, if this is a proper list (ending in `nil`).
    ///
    /// ```
    /// use lolli::Value;
    /// assert_eq!(Value::Atom("nil".into()).as_list(), Some(vec![]));
    /// assert_eq!(Value::Int(3).as_list(), None);
    /// ```
    pub fn as_list(&self) -> Option<Vec<Value>> {
        let mut items = Vec::new();
        let mut v = self;
        loop {
            match v {
                Value::Atom(a) if a == "nil" => return Some(items),
                Value::Compound(f, args) if f == "::" && args.len() == 2 => {
                    items.push(args[0].clone());
                    v = &args[1];
                }
                _ => return None,
            }
        }
    }

    /// The integer, if this is one.
    ///
    /// ```
    /// use lolli::Value;
    /// assert_eq!(Value::Int(7).as_int(), Some(7));
    /// assert_eq!(Value::Atom("seven".into()).as_int(), None);
    /// ```
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

impl Clone for Value {
    fn clone(&self) -> Self {
        enum Task<'v> {
            Copy(&'v Value),
            Make(&'v str, usize),
        }
        let mut tasks = vec![Task::Copy(self)];
        let mut done: Vec<Value> = Vec::new();
        while let Some(t) = tasks.pop() {
            match t {
                Task::Copy(v) => match v {
                    Value::Atom(a) => done.push(Value::Atom(a.clone())),
                    Value::Int(i) => done.push(Value::Int(*i)),
                    Value::Str(s) => done.push(Value::Str(s.clone())),
                    Value::Var(x) => done.push(Value::Var(x.clone())),
                    Value::Compound(name, args) => {
                        tasks.push(Task::Make(name, args.len()));
                        tasks.extend(args.iter().rev().map(Task::Copy));
                    }
                },
                Task::Make(name, n) => {
                    let args = done.split_off(done.len() - n);
                    done.push(Value::Compound(name.to_string(), args));
                }
            }
        }
        done.pop().unwrap_or(Value::Int(0))
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some(pair) = pairs.pop() {
            match pair {
                (Value::Atom(a), Value::Atom(b))
                | (Value::Str(a), Value::Str(b))
                | (Value::Var(a), Value::Var(b))
                    if a == b => {}
                (Value::Int(a), Value::Int(b)) if a == b => {}
                (Value::Compound(f, xs), Value::Compound(g, ys))
                    if f == g && xs.len() == ys.len() =>
                {
                    pairs.extend(xs.iter().zip(ys));
                }
                _ => return false,
            }
        }
        true
    }
}

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            std::mem::discriminant(v).hash(state);
            match v {
                Value::Atom(a) | Value::Str(a) | Value::Var(a) => a.hash(state),
                Value::Int(i) => i.hash(state),
                Value::Compound(name, args) => {
                    name.hash(state);
                    args.len().hash(state);
                    stack.extend(args.iter().rev());
                }
            }
        }
    }
}

impl Drop for Value {
    /// Dropped without recursion, so that a long list (a value nested as
    /// deep as it is long) cannot overflow the stack of the thread that
    /// drops it.
    fn drop(&mut self) {
        let Value::Compound(_, args) = self else {
            return;
        };
        if args.iter().all(|a| !matches!(a, Value::Compound(..))) {
            return;
        }
        let mut stack = std::mem::take(args);
        while let Some(mut v) = stack.pop() {
            if let Value::Compound(_, a) = &mut v {
                stack.append(a);
            }
        }
    }
}

/// As derived, nested values written through [`crate::util::deep`].
impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::util::deep(|| match self {
            Value::Atom(s) => f.debug_tuple("Atom").field(s).finish(),
            Value::Int(i) => f.debug_tuple("Int").field(i).finish(),
            Value::Str(s) => f.debug_tuple("Str").field(s).finish(),
            Value::Var(s) => f.debug_tuple("Var").field(s).finish(),
            Value::Compound(n, args) => f.debug_tuple("Compound").field(n).field(args).finish(),
        })
    }
}

impl fmt::Display for Value {
    /// A simple prefix form: `f a b`, arguments that are compound in
    /// parentheses, lists with `::`.  (Answers also carry the interpreter's
    /// own printed form, which knows every operator.)
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // (Other compounds nest through `deep`.)
        fn arg(v: &Value, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            crate::util::deep(|| match v {
                Value::Compound(..) => write!(f, "({v})"),
                _ => write!(f, "{v}"),
            })
        }
        match self {
            Value::Atom(a) => write!(f, "{}", crate::pretty::quote_name(a)),
            Value::Int(i) => write!(f, "{i}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Var(v) => write!(f, "{v}"),
            Value::Compound(name, args) if name == "::" && args.len() == 2 => {
                // The spine in a loop: a list is nested as deep as it is long.
                let mut args = args;
                loop {
                    arg(&args[0], f)?;
                    write!(f, " :: ")?;
                    match &args[1] {
                        Value::Compound(n, a) if n == "::" && a.len() == 2 => args = a,
                        tail => return arg(tail, f),
                    }
                }
            }
            Value::Compound(name, args) => {
                write!(f, "{}", crate::pretty::quote_name(name))?;
                for a in args {
                    write!(f, " ")?;
                    arg(a, f)?;
                }
                Ok(())
            }
        }
    }
}

/// The closure behind a foreign predicate: gets the arguments, answers as
/// the module doc says.
pub type ForeignFn = Box<dyn FnMut(&[Value]) -> Result<Option<Vec<Value>>, String>>;

/// The registered foreign predicates, by name and arity.
#[derive(Default)]
pub struct Foreign {
    /// Each closure is shared so the machine can call it while borrowed.
    preds: HashMap<(SymId, u32), Rc<RefCell<ForeignFn>>>,
}

impl Foreign {
    /// Register (or replace) the predicate `name/arity`.
    pub fn register(&mut self, name: SymId, arity: u32, f: ForeignFn) {
        self.preds.insert((name, arity), Rc::new(RefCell::new(f)));
    }

    /// Whether nothing is registered (the machine's fast path).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.preds.is_empty()
    }

    /// Every registered predicate (name, number of arguments).
    pub fn predicates(&self) -> Vec<(SymId, u32)> {
        self.preds.keys().copied().collect()
    }

    /// The numbers of arguments with which `name` is registered.
    pub fn arities(&self, name: SymId) -> impl Iterator<Item = u32> + '_ {
        self.preds
            .keys()
            .filter(move |(f, _)| *f == name)
            .map(|&(_, n)| n)
    }

    /// The closure for `name/arity`, if registered.
    pub fn get(&self, name: SymId, arity: u32) -> Option<Rc<RefCell<ForeignFn>>> {
        self.preds.get(&(name, arity)).cloned()
    }
}

impl Machine {
    /// Call a foreign predicate on goal `g` (arguments at `args`).
    pub(crate) fn call_foreign(
        &mut self,
        f: Rc<RefCell<ForeignFn>>,
        g: Cell,
        args: Addr,
        arity: u32,
        parent: u32,
        origin: u32,
    ) -> Result<bool, RuntimeError> {
        let cells: Vec<Cell> = (0..arity)
            .map(|i| self.store.heap.get(Addr(args.0 + i)))
            .collect();
        let values = {
            let p = crate::pretty::Printer::new(self);
            cells
                .iter()
                .map(|&c| value_of(self, &p, c))
                .collect::<Vec<_>>()
        };
        let reply = {
            let mut call = f.borrow_mut();
            (*call)(&values)
        };
        match reply {
            Err(message) => Err(self.error_at(message, g, origin)),
            Ok(None) => Ok(false),
            Ok(Some(out)) => {
                if out.len() != arity as usize {
                    return Err(self.error_at(
                        format!(
                            "the Rust built-in answered {} value(s) for {} argument(s)",
                            out.len(),
                            arity
                        ),
                        g,
                        origin,
                    ));
                }
                let mut vars = HashMap::new();
                for (c, v) in cells.into_iter().zip(out.iter()) {
                    let t = self.build_value(v, &mut vars);
                    if !self.store.unify(c, t) {
                        return Ok(false);
                    }
                }
                self.proof_node(parent, Rule::Builtin, g);
                Ok(true)
            }
        }
    }

    /// Build a value on the heap; `vars` maps variable names to the heap
    /// variables made for them (so a name used twice is one variable).
    pub fn build_value(&mut self, v: &Value, vars: &mut HashMap<String, Cell>) -> Cell {
        // Post-order with an explicit stack: values of finished subterms
        // collect in `done`.
        enum Task<'v> {
            Build(&'v Value),
            Make(SymId, usize),
        }
        let mut tasks = vec![Task::Build(v)];
        let mut done: Vec<Cell> = Vec::new();
        while let Some(t) = tasks.pop() {
            match t {
                Task::Build(v) => match v {
                    Value::Atom(a) => done.push(Cell::Atom(self.symbols.intern(a))),
                    Value::Int(i) => done.push(Cell::Int(*i)),
                    Value::Str(s) => done.push(Cell::Str(self.symbols.intern_str(s))),
                    Value::Var(name) => {
                        let c = match vars.get(name) {
                            Some(&c) if name != "_" => c,
                            _ => {
                                let c = self.store.heap.new_var();
                                vars.insert(name.clone(), c);
                                c
                            }
                        };
                        done.push(c);
                    }
                    Value::Compound(f, args) if args.is_empty() => {
                        done.push(Cell::Atom(self.symbols.intern(f)))
                    }
                    Value::Compound(f, args) => {
                        let s = self.symbols.intern(f);
                        tasks.push(Task::Make(s, args.len()));
                        for a in args.iter().rev() {
                            tasks.push(Task::Build(a));
                        }
                    }
                },
                Task::Make(s, n) => {
                    let args = done.split_off(done.len() - n);
                    let c = self.store.heap.new_struct(s, &args);
                    done.push(c);
                }
            }
        }
        done.pop().unwrap_or(Cell::Atom(sym::NIL))
    }
}

/// The value of heap term `c`; unbound variables are named as printer `p`
/// names them.
pub fn value_of(m: &Machine, p: &crate::pretty::Printer<'_>, c: Cell) -> Value {
    enum Task {
        Read(Cell),
        Make(String, usize),
    }
    let mut tasks = vec![Task::Read(c)];
    let mut done: Vec<Value> = Vec::new();
    while let Some(t) = tasks.pop() {
        match t {
            Task::Read(c) => {
                let c = m.store.deref(c);
                match c {
                    Cell::Ref(_) => done.push(Value::Var(p.term(c))),
                    Cell::Atom(s) => done.push(Value::Atom(m.symbols.name(s).to_string())),
                    Cell::Int(i) => done.push(Value::Int(i)),
                    Cell::Str(s) => done.push(Value::Str(m.symbols.string(s).to_string())),
                    Cell::Struct(a) => match m.store.heap.get(a) {
                        Cell::Functor(f, n) => {
                            tasks.push(Task::Make(m.symbols.name(f).to_string(), n as usize));
                            for i in (0..n).rev() {
                                tasks.push(Task::Read(m.store.heap.arg(a, i)));
                            }
                        }
                        other => done.push(Value::Atom(p.term(other))),
                    },
                    // Fresh constants and binder variables: by their printed name.
                    other => done.push(Value::Atom(p.term(other))),
                }
            }
            Task::Make(name, n) => {
                let args = done.split_off(done.len() - n);
                done.push(Value::Compound(name, args));
            }
        }
    }
    done.pop().unwrap_or(Value::Atom("nil".into()))
}

impl Machine {
    /// The foreign predicate for a call, if any (free when none is registered).
    #[inline]
    pub(crate) fn foreign_of(&self, name: SymId, arity: u32) -> Option<Rc<RefCell<ForeignFn>>> {
        if self.foreign.is_empty() {
            None
        } else {
            self.foreign.get(name, arity)
        }
    }
}
