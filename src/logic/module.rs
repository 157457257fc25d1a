//! Modules: a program file compiled into templates, and the module search.
//!
//! A file holds `MODULE name P1 ... Pn.` (optional), `LOCAL` and `MEMO`
//! declarations, clauses and `LINEAR` clauses.  Compiling it gives a
//! [`Module`]: its parameters and local names (which become each clause
//! template's environment slots, in that order) and its clauses in file order.
//! A module is compiled once and instantiated at each `M --o G` (the engine
//! binds the parameters to M's arguments and the local names to fresh
//! constants).
//!
//! A module `name` lives in `name.lolli` (or `name.ll`, Lolli 0.94's
//! extension) in one of the search directories, tried in order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::template::{Compiler, Template};
use crate::builtins::{is_connective, Builtin};
use crate::diagnostics::RuntimeError;
use crate::source::FileId;
use crate::syntax::ast::{Item, Span};
use crate::term::{SymId, Symbols};

/// One clause of a module.
#[derive(Clone, Debug)]
pub struct ModuleClause {
    /// The compiled clause.
    pub template: Rc<Template>,
    /// Whether it was declared `LINEAR`.
    pub linear: bool,
}

/// A compiled module.
#[derive(Clone, Debug)]
pub struct Module {
    /// The module name (from `MODULE`, else the file stem).
    pub name: String,
    /// Parameter names.
    pub params: Vec<String>,
    /// `LOCAL` names.
    pub locals: Vec<String>,
    /// Predicates declared `MEMO`.
    pub memo: Vec<String>,
    /// Clauses in file order.
    pub clauses: Vec<ModuleClause>,
    /// The parsed items, kept to compile the module again for each loading
    /// when it has `LOCAL` names.
    pub items: Rc<Vec<Item>>,
    /// The source it came from.
    pub file: FileId,
}

impl Module {
    /// Number of environment slots of its templates.
    pub fn env_len(&self) -> usize {
        self.params.len()
    }
}

/// A problem found while compiling a module: data for a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleError {
    /// Where.
    pub span: Span,
    /// What, in words.
    pub message: String,
}

/// Compile the items of one file.  `expected_name` is the name the module was
/// looked up by (a `MODULE` declaration must agree with it).
pub fn compile_module(
    items: &Rc<Vec<Item>>,
    file: FileId,
    default_name: &str,
    expected_name: Option<&str>,
    symbols: &mut Symbols,
    binder_names: &mut Vec<SymId>,
    local_syms: Option<&HashMap<String, SymId>>,
) -> (Module, Vec<ModuleError>) {
    let mut errors = Vec::new();
    let mut name = default_name.to_string();
    let mut params = Vec::new();
    let mut locals: Vec<String> = Vec::new();
    let mut memo = Vec::new();
    let mut declared = false;
    let mut clause_seen = false;
    for item in items.iter() {
        match item {
            Item::Module {
                name: n,
                name_span,
                params: ps,
                ..
            } => {
                if clause_seen && !declared {
                    errors.push(ModuleError {
                        span: name_span.clone(),
                        message: "the `MODULE` declaration must come before the file's clauses: \
                                  move it to the top of the file"
                            .to_string(),
                    });
                }
                for (k, (p, span)) in ps.iter().enumerate() {
                    if ps[..k].iter().any(|(q, _)| q == p) {
                        errors.push(ModuleError {
                            span: span.clone(),
                            message: format!(
                                "the module parameter `{p}` is named twice: each parameter \
                                 needs a name of its own"
                            ),
                        });
                    }
                }
                if declared {
                    errors.push(ModuleError {
                        span: name_span.clone(),
                        message: "a file holds one module: this second `MODULE` declaration \
                                  must go"
                            .to_string(),
                    });
                    continue;
                }
                declared = true;
                if let Some(expected) = expected_name {
                    if n != expected {
                        errors.push(ModuleError {
                            span: name_span.clone(),
                            message: format!(
                                "this file declares module `{n}`, but it is loaded as module \
                                 `{expected}`: a module's name must match its file name; rename \
                                 the file to `{n}.lolli` or the declaration to `MODULE {expected}`"
                            ),
                        });
                    }
                }
                name = n.clone();
                params = ps.iter().map(|(p, _)| p.clone()).collect();
            }
            Item::Local(names, _) => {
                for (n, _) in names {
                    if !locals.contains(n) {
                        locals.push(n.clone());
                    }
                }
            }
            Item::Memo(names, _) => memo.extend(names.iter().map(|(n, _)| n.clone())),
            Item::Clause(_) | Item::Linear(..) => clause_seen = true,
        }
    }
    // Each loading of the module gets fresh symbols for its LOCAL names; the
    // first compilation (which checks the file) uses the names themselves.
    let local_slots: HashMap<String, SymId> = match local_syms {
        Some(m) => m.clone(),
        None => locals
            .iter()
            .map(|n| (n.clone(), symbols.intern(n)))
            .collect(),
    };
    let locals_needed = !locals.is_empty();
    let mut clauses = Vec::new();
    for item in items.iter() {
        let (term, linear) = match item {
            Item::Clause(t) => (t, false),
            Item::Linear(t, _) => (t, true),
            _ => continue,
        };
        let compiler = Compiler::new(symbols, binder_names, &params, &local_slots);
        match compiler.clause(term) {
            Ok(mut t) => {
                t.origin = Some((file, term.span.clone()));
                let before = errors.len();
                if linear && t.alts.is_empty() {
                    errors.push(ModuleError {
                        span: term.span.clone(),
                        message: "`LINEAR` must be followed by a clause that can be a resource, \
                                  but this clause has no head: it could never be used, \
                                  so every query would fail"
                            .to_string(),
                    });
                }
                for (pred, _) in &t.keys {
                    let pname = symbols.name(pred.0).to_string();
                    if let Some(message) = head_error(&pname, pred.1, linear) {
                        errors.push(ModuleError {
                            span: term.span.clone(),
                            message,
                        });
                    }
                }
                if errors.len() == before {
                    clauses.push(ModuleClause {
                        template: Rc::new(t),
                        linear,
                    });
                }
            }
            Err(e) => errors.push(ModuleError {
                span: e.span,
                message: if linear {
                    format!(
                        "`LINEAR` must be followed by a clause that can be a resource: {}",
                        e.message
                    )
                } else {
                    e.message
                },
            }),
        }
    }
    (
        Module {
            name,
            params,
            locals,
            memo,
            clauses,
            file,
            items: if locals_needed {
                items.clone()
            } else {
                Rc::new(Vec::new())
            },
        },
        errors,
    )
}

/// Why a clause may not have a head `name` with `arity` arguments, if it may not.
fn head_error(name: &str, arity: u32, linear: bool) -> Option<String> {
    let what = if linear { "a resource" } else { "a clause" };
    if name == "$apply" {
        return Some(format!(
            "the head of {what} must start with a predicate name, not a variable"
        ));
    }
    if is_connective(name, arity) {
        let shown = match (name, arity) {
            ("{}", 1) => "{ G }".to_string(),
            ("->", 3) => "G1 -> G2 | G3".to_string(),
            (_, 0) => name.to_string(),
            _ => format!("A {name} B"),
        };
        return Some(format!(
            "`{shown}` is a goal, not {what}: a clause's head must be an atom \
             such as `p` or `p X Y`"
        ));
    }
    Builtin::lookup(name, arity)?;
    Some(format!(
        "`{name}` with {arity} argument{} is built in and cannot be defined by {what}; \
         choose another name",
        if arity == 1 { "" } else { "s" }
    ))
}

/// The error for a module that is not in any search directory: every
/// directory searched, and a near name if one exists there.
pub fn module_not_found(name: &str, dirs: &[PathBuf]) -> RuntimeError {
    let shown: Vec<String> = dirs.iter().map(|d| format!("`{}`", d.display())).collect();
    let mut e = RuntimeError::new(format!("module `{name}` not found"))
        .note(format!(
            "looked for `{name}.lolli` and `{name}.ll` in {}",
            if shown.is_empty() {
                "no directory (the search path is empty)".to_string()
            } else {
                shown.join(", ")
            }
        ))
        .note("add a directory to the search path with `-I DIR` or `LOLLI_PATH`");
    if let Some(near) = crate::util::nearest(name, &available_modules(dirs)) {
        e = e.note(format!("did you mean `{near}`?"));
    }
    e
}

/// Find the file of module `name` in `dirs`; returns the path, or every path tried.
pub fn find_module(name: &str, dirs: &[PathBuf]) -> Result<PathBuf, Vec<PathBuf>> {
    let mut tried = Vec::new();
    for dir in dirs {
        for ext in ["lolli", "ll"] {
            let p = dir.join(format!("{name}.{ext}"));
            if p.is_file() {
                return Ok(p);
            }
            tried.push(p);
        }
    }
    Err(tried)
}

/// Module names available in `dirs` (for suggestions and completion).
pub fn available_modules(dirs: &[PathBuf]) -> Vec<String> {
    let mut names = Vec::new();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if matches!(p.extension().and_then(|x| x.to_str()), Some("lolli" | "ll")) {
                if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
                    if !names.iter().any(|n| n == stem) {
                        names.push(stem.to_string());
                    }
                }
            }
        }
    }
    names.sort();
    names
}

/// The module name a file path implies (its stem).
pub fn module_name_of(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("main")
        .to_string()
}
