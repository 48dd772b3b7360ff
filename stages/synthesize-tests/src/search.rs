//! The coverage-guided search for one function: the arguments the repository's own tests
//! called it with first (observed seeds, [`Search::with_seeds`]: each kept as a case the
//! search mutates, whether or not it covers something new), then edge values, then inputs
//! drawn from the parameters' proptest strategies; an input is kept when it covers a branch arc of the
//! original that no kept input covered, and is then shrunk (proptest's value tree) while it
//! still covers what it was kept for; kept inputs are mutated to reach the arcs left. It
//! stops at full coverage or at the budget (calls, seconds, calls without progress).
//! Every case records its lineage ([`Case::from_observed`], [`Case::parent`]): an observed
//! seed, or a mutation of a case that is one, counts as from observed.
//!
//! The search talks to the code through [`Runner`], so its logic is tested without Python.

use std::collections::{BTreeSet, HashSet};
use std::time::Instant;

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use execution::Value;

use crate::pyval::{args_literal, kwargs_literal, PyVal};
use crate::strategy::{self, Pool};
use crate::types::Ty;

/// A branch arc as coverage.py reports it (negative lines: entry and exit).
pub type Arc = (i32, i32);

/// How a parameter is passed.
pub use schemas::ParamKind;

/// One parameter as the search sees it.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    pub name: String,
    pub kind: ParamKind,
    pub ty: Ty,
    pub has_default: bool,
}

/// Keyword arguments by name, in the order given.
type Keywords = Vec<(String, PyVal)>;

/// One input: a value per parameter (`None`: left to its default) and extra positionals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub values: Vec<Option<PyVal>>,
    pub varargs: Vec<PyVal>,
    /// Keyword arguments for a `**kwargs` parameter.
    pub extra_kwargs: Vec<(String, PyVal)>,
}

impl Input {
    /// Every value the input passes: the parameters' (not those left to their defaults),
    /// then `*args`', then `**kwargs`'.
    pub fn passed(&self) -> impl Iterator<Item = &PyVal> {
        self.values
            .iter()
            .flatten()
            .chain(&self.varargs)
            .chain(self.extra_kwargs.iter().map(|(_, v)| v))
    }

    /// The positional and keyword arguments of a call with this input: positionals in order
    /// until the first one left to its default, the later ones by keyword, `*args` only when
    /// no positional was left out, `**kwargs` names that are no parameter's.
    fn arguments(&self, params: &[ParamSpec]) -> (Vec<PyVal>, Vec<(String, PyVal)>) {
        let mut args = Vec::new();
        let mut kwargs = Vec::new();
        let mut omitted = false;
        for (p, v) in params.iter().zip(&self.values) {
            match (p.kind, v) {
                (ParamKind::VarPositional | ParamKind::VarKeyword, _)
                | (ParamKind::KeywordOnly, None) => {}
                (ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword, None) => {
                    omitted = true;
                }
                (ParamKind::PositionalOnly, Some(v)) => args.push(v.clone()),
                (ParamKind::PositionalOrKeyword, Some(v)) if !omitted => args.push(v.clone()),
                (ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly, Some(v)) => {
                    kwargs.push((p.name.clone(), v.clone()));
                }
            }
        }
        if !omitted {
            args.extend(self.varargs.iter().cloned());
        }
        for (k, v) in &self.extra_kwargs {
            if !params.iter().any(|p| p.name == *k) {
                kwargs.push((k.clone(), v.clone()));
            }
        }
        (args, kwargs)
    }

    /// The `args` and `kwargs` literals of a call with this input.
    pub fn literals(&self, params: &[ParamSpec]) -> (String, String) {
        let (args, kwargs) = self.arguments(params);
        (args_literal(&args), kwargs_literal(&kwargs))
    }

    /// The input of a docstring example: positionals in parameter order (extra ones to a
    /// `*args`), keywords by name (unknown ones to a `**kwargs`); `None` when it does not fit.
    pub fn from_example(params: &[ParamSpec], ex: &crate::doc::Example) -> Option<Input> {
        let mut values: Vec<Option<PyVal>> = vec![None; params.len()];
        let mut varargs = Vec::new();
        let mut extra_kwargs = Vec::new();
        let positional: Vec<usize> = params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                matches!(
                    p.kind,
                    ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
                )
            })
            .map(|(i, _)| i)
            .collect();
        for (j, v) in ex.args.iter().enumerate() {
            match positional.get(j) {
                Some(&i) => values[i] = Some(v.clone()),
                None if params.iter().any(|p| p.kind == ParamKind::VarPositional) => {
                    varargs.push(v.clone());
                }
                None => return None,
            }
        }
        for (k, v) in &ex.kwargs {
            match params.iter().position(|p| {
                p.name == *k
                    && !matches!(
                        p.kind,
                        ParamKind::PositionalOnly
                            | ParamKind::VarPositional
                            | ParamKind::VarKeyword
                    )
            }) {
                Some(i) if values[i].is_none() => values[i] = Some(v.clone()),
                None if params.iter().any(|p| p.kind == ParamKind::VarKeyword) => {
                    extra_kwargs.push((k.clone(), v.clone()));
                }
                // Given twice, or a name no parameter has.
                Some(_) | None => return None,
            }
        }
        // A parameter without a default must have a value.
        for (p, v) in params.iter().zip(&values) {
            if v.is_none()
                && !p.has_default
                && matches!(
                    p.kind,
                    ParamKind::PositionalOnly
                        | ParamKind::PositionalOrKeyword
                        | ParamKind::KeywordOnly
                )
            {
                return None;
            }
        }
        // Omitted positionals followed by given ones are passed by keyword by `literals`.
        Some(Input {
            values,
            varargs,
            extra_kwargs,
        })
    }

    /// The call as Python source: `name(1, 'a', sep=',')`.
    pub fn call_text(&self, name: &str, params: &[ParamSpec]) -> String {
        let (args, kwargs) = self.arguments(params);
        let parts: Vec<String> = args
            .iter()
            .map(PyVal::literal)
            .chain(kwargs.iter().map(|(k, v)| format!("{k}={}", v.literal())))
            .collect();
        format!("{name}({})", parts.join(", "))
    }

    pub fn size(&self) -> usize {
        self.values.iter().flatten().map(PyVal::size).sum::<usize>()
            + self.varargs.iter().map(PyVal::size).sum::<usize>()
            + self
                .extra_kwargs
                .iter()
                .map(|(_, v)| 1 + v.size())
                .sum::<usize>()
    }
}

/// What one call of the code did.
#[derive(Debug, Clone, PartialEq)]
pub enum CallResult {
    Returned {
        value: Value,
        repr: String,
    },
    Raised {
        type_name: String,
        message: String,
    },
    /// Timeout, crash, memory, sandbox violation, harness error ...: never a test case.
    Failed {
        status: String,
        detail: String,
    },
}

/// A call's result and the arcs it covered.
#[derive(Debug, Clone)]
pub struct Observed {
    pub result: CallResult,
    pub arcs: BTreeSet<Arc>,
    /// Every arc of the function (coverage.py's static analysis), when coverage ran.
    pub all_arcs: Option<BTreeSet<Arc>>,
}

/// Where calls go: the original under coverage.
pub trait Runner {
    fn call(&mut self, args: &str, kwargs: &str) -> Observed;
}

/// Exceptions that, unless the function raises them itself, say the input was of a type the
/// function does not take: such calls are not test cases.
pub const ACCIDENTAL: &[&str] = &[
    "TypeError",
    "AttributeError",
    "NameError",
    "UnboundLocalError",
    "RecursionError",
    "ImportError",
    "ModuleNotFoundError",
    "MemoryError",
    "SystemExit",
    "KeyboardInterrupt",
];

/// The search's limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Calls of the original, shrinking included.
    pub calls: usize,
    /// Seconds of search (a safety net: a run that stops on it may differ from another).
    pub seconds: f64,
    /// Stop after this many calls in a row that covered nothing new.
    pub stall: usize,
    /// Edge-value calls tried before random inputs.
    pub edge_calls: usize,
    /// Edge cases kept beyond those that cover something.
    pub edge_cases: usize,
    /// Calls spent shrinking one kept input.
    pub shrink_calls: usize,
    /// Usable inputs to have run in all (for the mutation stage), searching on past full
    /// coverage when needed.
    pub reservoir: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            calls: 600,
            seconds: 20.0,
            stall: 250,
            edge_calls: 64,
            edge_cases: 6,
            shrink_calls: 24,
            reservoir: 64,
        }
    }
}

/// A kept input and what the original did with it.
#[derive(Debug, Clone)]
pub struct Case {
    pub input: Input,
    pub args: String,
    pub kwargs: String,
    pub result: CallResult,
    pub arcs: BTreeSet<Arc>,
    /// One of the edge values, not a coverage find.
    pub is_edge: bool,
    /// An observed seed (arguments of the repository's tests), or derived from one by
    /// mutation (through any number of generations).
    pub from_observed: bool,
    /// The kept case (index in [`Found::cases`]) this input is a mutation of; `None` for
    /// seeds, edge values and drawn inputs.
    pub parent: Option<usize>,
}

/// Where an input came from, as [`Case`] records it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lineage {
    pub from_observed: bool,
    pub parent: Option<usize>,
}

impl Lineage {
    /// An observed seed.
    pub const OBSERVED: Lineage = Lineage {
        from_observed: true,
        parent: None,
    };
}

/// Why the search stopped (`NotRun` is never the search's own).
pub use schemas::SearchStop as Stop;

/// What the search found.
#[derive(Debug, Clone)]
pub struct Found {
    pub cases: Vec<Case>,
    pub covered: BTreeSet<Arc>,
    pub total: BTreeSet<Arc>,
    pub calls: usize,
    pub seconds: f64,
    pub stop: Stop,
    /// Calls whose result was unusable, by reason (`TypeError`, `timeout`, `unstable value`).
    pub discarded: std::collections::BTreeMap<String, usize>,
    /// Usable calls made (the first [`RESERVOIR`] distinct ones), cases or not.
    pub reservoir: Vec<Case>,
    /// Observed seeds given, and of them those run with a usable result.
    pub seeds: usize,
    pub seeds_usable: usize,
}

/// The search of one function.
pub struct Search<'a, R: Runner> {
    params: &'a [ParamSpec],
    /// Arguments the repository's tests called the function with, tried first of all.
    seeds: Vec<Input>,
    /// Inputs from the docstring's examples, tried before the edge values.
    examples: Vec<Input>,
    pool: &'a Pool,
    raises: &'a BTreeSet<String>,
    budget: Budget,
    runner: R,
    started: Instant,
    calls: usize,
    covered: BTreeSet<Arc>,
    total: Option<BTreeSet<Arc>>,
    cases: Vec<Case>,
    reservoir: Vec<Case>,
    discarded: std::collections::BTreeMap<String, usize>,
    /// The argument slots and what they held ([`suspect_slots`]) when a call timed out: no
    /// input with such a value there is run again (`while x < 0: x += 1` never ends from
    /// -1e300, nor from -inf or -1e12; `while n: n >>= 8` never ends from -1; and each such
    /// call costs the whole call timeout).
    hung: BTreeSet<(usize, Suspect)>,
    /// The argument slots and the types of value they held in calls that ended (returned,
    /// raised or failed, but did not time out): a type that hung where another ended is
    /// suspect ([`Suspect::Type`]).
    ended: BTreeSet<(usize, &'static str)>,
    /// The argument literals of every call made: the code is deterministic (a function
    /// that is not was not a candidate), so the same call again shows nothing new, and it
    /// is not made (nor counted as a call).
    ran: HashSet<(String, String)>,
}

/// The discard reason of an input not run because such a value hung a call before.
const SKIPPED_HUNG: &str = "skipped: a value like it there hung a call";

/// Tries at a mutation that makes a call not made before.
const MUTATION_TRIES: usize = 8;

/// What in an argument may have made a call run forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Suspect {
    /// A value whose size alone can make a loop long ([`holds_extreme`]).
    Extreme,
    /// A negative integer (a loop counting down to zero, or shifting towards it): suspected
    /// only when no extreme value was passed.
    Negative,
    /// A value of this type (`list`, `str`, [`type_of`]), where it had never let a call end
    /// and another type had (`while s[i:i + 1] != ''` never ends for a list): suspected only
    /// when no extreme value nor negative integer was passed, and never the last type a
    /// slot has left.
    Type(&'static str),
}

/// The name of a value's type, as [`Suspect::Type`] tells them apart.
fn type_of(v: &PyVal) -> &'static str {
    match v {
        PyVal::None => "None",
        PyVal::Bool(_) => "bool",
        PyVal::Int(_) => "int",
        PyVal::Float(_) => "float",
        PyVal::Str(_) => "str",
        PyVal::Bytes(_) => "bytes",
        PyVal::List(_) => "list",
        PyVal::Tuple(_) => "tuple",
        PyVal::Set(_) => "set",
        PyVal::FrozenSet(_) => "frozenset",
        PyVal::Iter(_) => "iterator",
        PyVal::Dict(_) => "dict",
        PyVal::Callable(_) => "callable",
        PyVal::Std(t, _) => t.name(),
        PyVal::Namespace(_) => "namespace",
    }
}

/// Whether a value is or holds a negative integer.
fn holds_negative(v: &PyVal) -> bool {
    match v {
        PyVal::Int(i) => *i < 0,
        PyVal::List(xs)
        | PyVal::Tuple(xs)
        | PyVal::Set(xs)
        | PyVal::FrozenSet(xs)
        | PyVal::Iter(xs) => xs.iter().any(holds_negative),
        PyVal::Dict(kv) => kv
            .iter()
            .any(|(k, x)| holds_negative(k) || holds_negative(x)),
        PyVal::Namespace(kv) => kv.iter().any(|(_, x)| holds_negative(x)),
        _ => false,
    }
}

/// Whether a value holds one whose size alone can make a loop run long: a float at or
/// beyond 1e12 in size or not finite, an integer beyond 2^31, a string or bytes of 1000
/// items or more, or a container holding one.
fn holds_extreme(v: &PyVal) -> bool {
    match v {
        PyVal::Float(f) => !f.is_finite() || f.abs() >= 1e12,
        PyVal::Int(i) => i.unsigned_abs() > 1 << 31,
        PyVal::Str(s) => s.len() >= 1000,
        PyVal::Bytes(b) => b.len() >= 1000,
        PyVal::List(xs)
        | PyVal::Tuple(xs)
        | PyVal::Set(xs)
        | PyVal::FrozenSet(xs)
        | PyVal::Iter(xs) => xs.iter().any(holds_extreme),
        PyVal::Dict(kv) => kv.iter().any(|(k, x)| holds_extreme(k) || holds_extreme(x)),
        PyVal::Namespace(kv) => kv.iter().any(|(_, x)| holds_extreme(x)),
        _ => false,
    }
}

/// The slots of an input holding a value `what` says is suspect: a parameter's index, and
/// one past the last for `*args` and `**kwargs` together. After a timeout the slots of the
/// extreme values are suspect, or when there is none, those of the negative integers.
fn slots_holding(input: &Input, what: fn(&PyVal) -> bool) -> BTreeSet<usize> {
    let mut out: BTreeSet<usize> = input
        .values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.as_ref().is_some_and(what))
        .map(|(i, _)| i)
        .collect();
    if input
        .varargs
        .iter()
        .chain(input.extra_kwargs.iter().map(|(_, v)| v))
        .any(what)
    {
        out.insert(input.values.len());
    }
    out
}

/// Calls after which a search that has not one usable result gives up (every input raised
/// a type error, timed out or tripped the sandbox: the function needs what literals cannot
/// give).
pub const NOTHING_USABLE: usize = 200;

/// Usable calls kept aside (beyond the cases) for the mutation stage to draw on.
pub const RESERVOIR: usize = 400;

impl<'a, R: Runner> Search<'a, R> {
    pub fn new(
        params: &'a [ParamSpec],
        pool: &'a Pool,
        raises: &'a BTreeSet<String>,
        budget: Budget,
        runner: R,
    ) -> Search<'a, R> {
        Search {
            params,
            seeds: Vec::new(),
            examples: Vec::new(),
            pool,
            raises,
            budget,
            runner,
            started: Instant::now(),
            calls: 0,
            covered: BTreeSet::new(),
            total: None,
            cases: Vec::new(),
            reservoir: Vec::new(),
            discarded: std::collections::BTreeMap::new(),
            hung: BTreeSet::new(),
            ended: BTreeSet::new(),
            ran: HashSet::new(),
        }
    }

    /// Inputs to try before all others (the docstring's examples).
    #[must_use]
    pub fn with_examples(mut self, examples: Vec<Input>) -> Self {
        self.examples = examples;
        self
    }

    /// Inputs to run before everything else, each kept as a case to mutate when its result
    /// is usable (the observed calls): within the call budget, at most half of it.
    #[must_use]
    pub fn with_seeds(mut self, seeds: Vec<Input>) -> Self {
        self.seeds = seeds;
        self
    }

    /// Whether a result may be a test case.
    fn usable(&mut self, result: &CallResult) -> bool {
        let why = match result {
            // A memory address anywhere (a `str()` of an object included) differs between
            // processes.
            CallResult::Returned { value, .. }
                if value.is_stable() && !value.canonical().contains(" at 0x") =>
            {
                return true
            }
            CallResult::Returned { .. } => "unstable value".to_string(),
            CallResult::Raised { type_name, .. } => {
                if !ACCIDENTAL.contains(&type_name.as_str()) || self.raises.contains(type_name) {
                    return true;
                }
                type_name.clone()
            }
            CallResult::Failed { status, .. } => status.clone(),
        };
        *self.discarded.entry(why).or_default() += 1;
        false
    }

    fn full(&self) -> bool {
        self.total
            .as_ref()
            .is_some_and(|t| !t.is_empty() && t.is_subset(&self.covered))
    }

    fn stop(&self, since_new: usize) -> Option<Stop> {
        if self.full() {
            Some(Stop::FullCoverage)
        } else if self.calls >= self.budget.calls {
            Some(Stop::CallBudget)
        } else if self.started.elapsed().as_secs_f64() >= self.budget.seconds {
            Some(Stop::TimeBudget)
        } else if since_new >= self.budget.stall
            || (self.cases.is_empty() && self.calls >= NOTHING_USABLE)
        {
            Some(Stop::NoProgress)
        } else {
            None
        }
    }

    /// Runs one input. Returns its observation when the result is usable.
    fn run(&mut self, input: &Input, lineage: Lineage) -> Option<(Observed, String, String)> {
        let extreme = slots_holding(input, holds_extreme);
        let negative = slots_holding(input, holds_negative);
        let held = |slots: &BTreeSet<usize>, what: Suspect| -> Vec<(usize, Suspect)> {
            slots.iter().map(|&i| (i, what)).collect()
        };
        let types: Vec<(usize, &'static str)> = input
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i, type_of(v.as_ref()?))))
            .collect();
        let suspects = if !extreme.is_empty() {
            held(&extreme, Suspect::Extreme)
        } else if !negative.is_empty() {
            held(&negative, Suspect::Negative)
        } else {
            types
                .iter()
                .filter(|&&(i, t)| {
                    !self.ended.contains(&(i, t)) && self.ended.iter().any(|&(j, _)| j == i)
                })
                .map(|&(i, t)| (i, Suspect::Type(t)))
                .collect()
        };
        if held(&extreme, Suspect::Extreme)
            .into_iter()
            .chain(held(&negative, Suspect::Negative))
            .chain(types.iter().map(|&(i, t)| (i, Suspect::Type(t))))
            .any(|s| self.hung.contains(&s))
        {
            // Counted as a call, so that every loop of the search still ends.
            self.calls += 1;
            *self.discarded.entry(SKIPPED_HUNG.into()).or_default() += 1;
            return None;
        }
        let (args, kwargs) = input.literals(self.params);
        if !self.ran.insert((args.clone(), kwargs.clone())) {
            // Not counted as a call: none is made. Every loop that runs inputs also ends
            // on calls made in a row without a new arc, or on its own count.
            return None;
        }
        self.calls += 1;
        let obs = self.runner.call(&args, &kwargs);
        if matches!(&obs.result, CallResult::Failed { status, .. } if status == execution::Status::Timeout.as_str())
        {
            self.hung.extend(suspects);
        } else {
            self.ended.extend(types);
        }
        tracing::trace!(%args, %kwargs, result = ?obs.result, arcs = ?obs.arcs, all = ?obs.all_arcs, "call");
        if self.total.is_none() {
            if let Some(all) = &obs.all_arcs {
                self.total = Some(all.clone());
            }
        }
        if self.usable(&obs.result) {
            if self.reservoir.len() < RESERVOIR
                && !self
                    .reservoir
                    .iter()
                    .any(|c| c.args == args && c.kwargs == kwargs)
            {
                self.reservoir.push(Case {
                    input: input.clone(),
                    args: args.clone(),
                    kwargs: kwargs.clone(),
                    result: obs.result.clone(),
                    arcs: obs.arcs.clone(),
                    is_edge: false,
                    from_observed: lineage.from_observed,
                    parent: lineage.parent,
                });
            }
            Some((obs, args, kwargs))
        } else {
            None
        }
    }

    fn keep(
        &mut self,
        input: Input,
        obs: Observed,
        args: String,
        kwargs: String,
        is_edge: bool,
        lineage: Lineage,
    ) {
        self.covered.extend(obs.arcs.iter().copied());
        self.cases.push(Case {
            input,
            args,
            kwargs,
            result: obs.result,
            arcs: obs.arcs,
            is_edge,
            from_observed: lineage.from_observed,
            parent: lineage.parent,
        });
    }

    /// Whether this input's call was made before.
    fn has_run(&self, input: &Input) -> bool {
        self.ran.contains(&input.literals(self.params))
    }

    /// The kept case to mutate next, from a random number. Every second time, a case at
    /// the frontier: one that reached the line an uncovered arc leaves (a decision taken
    /// one way only), picked by first picking such a line, so that a rare decision gets as
    /// many tries as a common one. Code like `elif include_empty_lines:` is reached by
    /// whitespace-only text alone, and a change of one other argument of that input turns
    /// it; a case picked among all of them is that one input seldom. Otherwise (or with no
    /// frontier) any case.
    fn parent(&self, r: usize) -> usize {
        let any = r % self.cases.len();
        if r.is_multiple_of(2) {
            return any;
        }
        let Some(total) = &self.total else {
            return any;
        };
        let reached = |case: &Case, line: i32| case.arcs.iter().any(|&(_, to)| to == line);
        let lines: BTreeSet<i32> = total
            .iter()
            .filter(|a| a.0 > 0 && !self.covered.contains(a))
            .map(|a| a.0)
            .filter(|&l| self.cases.iter().any(|c| reached(c, l)))
            .collect();
        if lines.is_empty() {
            return any;
        }
        let r = r / 2;
        let line = *lines.iter().nth(r % lines.len()).expect("in range");
        let at: Vec<usize> = (0..self.cases.len())
            .filter(|&i| reached(&self.cases[i], line))
            .collect();
        at[r / lines.len() % at.len()]
    }

    /// The arcs of `obs` that no kept case covers: static arcs, and also the exits by an
    /// exception from a line, which coverage.py's static analysis does not list but which
    /// are behaviour a test should pin down.
    fn new_arcs(&self, obs: &Observed) -> BTreeSet<Arc> {
        obs.arcs
            .iter()
            .filter(|a| !self.covered.contains(a))
            .copied()
            .collect()
    }

    /// The edge inputs: every parameter at its typical value, then one parameter at a time
    /// through its edge values (round robin over the parameters, so all get some).
    fn edge_inputs(&self) -> Vec<Input> {
        let edges: Vec<Vec<PyVal>> = self
            .params
            .iter()
            .map(|p| strategy::edges(&p.ty, self.pool))
            .collect();
        let base: Vec<Option<PyVal>> = self
            .params
            .iter()
            .zip(&edges)
            .map(|(p, e)| match p.kind {
                ParamKind::VarPositional | ParamKind::VarKeyword => None,
                _ => e.first().cloned(),
            })
            .collect();
        let all_typical = Input {
            values: base.clone(),
            varargs: Vec::new(),
            extra_kwargs: Vec::new(),
        };
        // The base of the variations: defaults left alone, the call as most callers make it
        // (a separator varied at random rarely helps; the text it separates does).
        let base: Vec<Option<PyVal>> = self
            .params
            .iter()
            .zip(&base)
            .map(|(p, v)| if p.has_default { None } else { v.clone() })
            .collect();
        let mut out = self.examples.clone();
        out.push(Input {
            values: base.clone(),
            varargs: Vec::new(),
            extra_kwargs: Vec::new(),
        });
        if self.params.iter().any(|p| p.has_default) {
            out.push(all_typical);
        }
        let longest = edges.iter().map(Vec::len).max().unwrap_or(0);
        // The diagonal: every parameter at its j-th edge at once (two empty lists, two lists
        // of one equal element...), which one-at-a-time variation never gives.
        if self.params.len() > 1 {
            for j in 1..longest.min(8) {
                let values: Vec<Option<PyVal>> = self
                    .params
                    .iter()
                    .zip(&edges)
                    .zip(&base)
                    .map(|((p, e), b)| match p.kind {
                        ParamKind::VarPositional | ParamKind::VarKeyword => None,
                        _ => e.get(j).cloned().or_else(|| b.clone()),
                    })
                    .collect();
                out.push(Input {
                    values,
                    varargs: Vec::new(),
                    extra_kwargs: Vec::new(),
                });
            }
        }
        for j in 1..longest {
            for (i, p) in self.params.iter().enumerate() {
                if matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword) {
                    continue;
                }
                if let Some(v) = edges[i].get(j) {
                    let mut values = base.clone();
                    values[i] = Some(v.clone());
                    out.push(Input {
                        values,
                        varargs: Vec::new(),
                        extra_kwargs: Vec::new(),
                    });
                }
            }
        }
        out.truncate(self.budget.edge_calls);
        out
    }

    /// The strategy of a whole input. One draw in twenty gives a parameter a value of any
    /// type: defensive branches (`except TypeError`, `isinstance` guards) need one.
    fn input_strategy(&self) -> BoxedStrategy<Input> {
        let per: Vec<BoxedStrategy<Option<PyVal>>> = self
            .params
            .iter()
            .map(|p| {
                if matches!(p.kind, ParamKind::VarPositional | ParamKind::VarKeyword) {
                    return Just(None).boxed();
                }
                let typed = strategy::strategy(&p.ty, self.pool, 0);
                let s = if p.ty == Ty::Any {
                    typed
                } else {
                    prop_oneof![19 => typed, 1 => strategy::strategy(&Ty::Any, self.pool, 0)]
                        .boxed()
                };
                if p.has_default && p.kind != ParamKind::PositionalOnly {
                    prop_oneof![1 => Just(None), 3 => s.prop_map(Some)].boxed()
                } else {
                    s.prop_map(Some).boxed()
                }
            })
            .collect();
        let varargs = match self
            .params
            .iter()
            .find(|p| p.kind == ParamKind::VarPositional)
        {
            // Each extra positional now and then of any type, as a parameter is; and now and
            // then all of them one value (code over `*args` compares them with each other).
            Some(p) => {
                let typed = strategy::strategy(&p.ty, self.pool, 1);
                let any = strategy::strategy(&Ty::Any, self.pool, 1);
                let (one, repeated) = if p.ty == Ty::Any {
                    (typed.clone(), typed)
                } else {
                    (
                        prop_oneof![19 => typed.clone(), 1 => any.clone()].boxed(),
                        prop_oneof![3 => typed, 1 => any].boxed(),
                    )
                };
                prop_oneof![
                    4 => proptest::collection::vec(one, 0..4),
                    1 => (repeated, 2..4usize).prop_map(|(v, n)| vec![v; n]),
                ]
                .boxed()
            }
            None => Just(Vec::new()).boxed(),
        };
        // Keywords by the names the function looks for, which are among its string
        // constants, and one it does not know.
        let mut names: Vec<String> = self
            .pool
            .strs
            .iter()
            .filter(|s| is_identifier(s))
            .cloned()
            .collect();
        names.push("other".into());
        let free = |value: &Ty| {
            let key = proptest::sample::select(names.clone());
            proptest::collection::vec((key, strategy::strategy(value, self.pool, 1)), 0..4)
                .prop_map(|kv| {
                    let mut out: Vec<(String, PyVal)> = Vec::new();
                    for (k, v) in kv {
                        if !out.iter().any(|(o, _)| *o == k) {
                            out.push((k, v));
                        }
                    }
                    out
                })
                .boxed()
        };
        let kwargs = match self.params.iter().find(|p| p.kind == ParamKind::VarKeyword) {
            // The keywords the body reads (`fields['particles']`): all of them mostly, else
            // one fewer, or with others beside them (`unknown = set(options) - {...}`).
            Some(p) if matches!(p.ty, Ty::Record(_)) => {
                let record = strategy::strategy(&p.ty, self.pool, 0).prop_map(|v| match v {
                    PyVal::Dict(kv) => kv
                        .into_iter()
                        .filter_map(|(k, v)| match k {
                            PyVal::Str(k) => Some((k, v)),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                });
                let fewer = record.clone().prop_map(|mut kv: Keywords| {
                    kv.truncate(kv.len().saturating_sub(1));
                    kv
                });
                let values = Ty::Union(
                    p.ty.fields()
                        .unwrap_or_default()
                        .iter()
                        .map(|(_, t)| t.clone())
                        .collect(),
                )
                .flatten();
                let more = (record.clone(), free(&values)).prop_map(
                    |(mut kv, extra): (Keywords, Keywords)| {
                        for (k, v) in extra {
                            if !kv.iter().any(|(o, _)| *o == k) {
                                kv.push((k, v));
                            }
                        }
                        kv
                    },
                );
                prop_oneof![4 => record, 1 => fewer, 1 => more].boxed()
            }
            Some(p) => free(&p.ty),
            None => Just(Vec::new()).boxed(),
        };
        (per, varargs, kwargs)
            .prop_map(|(values, varargs, extra_kwargs)| Input {
                values,
                varargs,
                extra_kwargs,
            })
            .boxed()
    }

    /// Runs the search. `seed` makes it reproducible (derived from the function's id).
    pub fn run_all(mut self, seed: [u8; 32]) -> (Found, R) {
        let mut since_new = 0usize;
        let mut edge_extra = 0usize;
        // 0. Observed seeds: each usable one kept, so that mutation starts from them.
        let seeds = std::mem::take(&mut self.seeds);
        let seed_calls = (self.budget.calls / 2).max(1);
        let mut seeds_usable = 0;
        for input in &seeds {
            if self.calls >= seed_calls
                || self.started.elapsed().as_secs_f64() >= self.budget.seconds
            {
                break;
            }
            if let Some((obs, args, kwargs)) = self.run(input, Lineage::OBSERVED) {
                seeds_usable += 1;
                self.keep(input.clone(), obs, args, kwargs, false, Lineage::OBSERVED);
            }
        }
        // 1. Edge values: all of them, even past full coverage (they are cheap, and the
        // mutation stage draws on what they gave).
        for input in self.edge_inputs() {
            if self.calls >= self.budget.calls
                || self.started.elapsed().as_secs_f64() >= self.budget.seconds
            {
                break;
            }
            let Some((obs, args, kwargs)) = self.run(&input, Lineage::default()) else {
                continue;
            };
            if !self.new_arcs(&obs).is_empty() {
                self.keep(input, obs, args, kwargs, true, Lineage::default());
            } else if edge_extra < self.budget.edge_cases
                && matches!(obs.result, CallResult::Returned { .. })
                && !self.cases.iter().any(|c| c.result == obs.result)
            {
                // An edge value whose result no kept case shows: kept as an edge case.
                edge_extra += 1;
                self.keep(input, obs, args, kwargs, true, Lineage::default());
            }
        }
        // 2. Random inputs from the strategies, shrunk when kept; kept inputs mutated.
        let strategy = self.input_strategy();
        let mut runner = TestRunner::new_with_rng(
            Config::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
        );
        let stop = loop {
            if let Some(s) = self.stop(since_new) {
                break s;
            }
            let mutate = !self.cases.is_empty() && runner.rng().next_u32().is_multiple_of(3);
            if mutate {
                let pick = self.parent(runner.rng().next_u32() as usize);
                let base = self.cases[pick].input.clone();
                let lineage = Lineage {
                    from_observed: self.cases[pick].from_observed,
                    parent: Some(pick),
                };
                let mut input = self.mutate(&base, &mut runner, &strategy);
                for _ in 1..MUTATION_TRIES {
                    if !self.has_run(&input) {
                        break;
                    }
                    input = self.mutate(&base, &mut runner, &strategy);
                }
                match self.run(&input, lineage) {
                    Some((obs, args, kwargs)) if !self.new_arcs(&obs).is_empty() => {
                        since_new = 0;
                        self.keep(input, obs, args, kwargs, false, lineage);
                    }
                    _ => since_new += 1,
                }
                continue;
            }
            let Ok(mut tree) = strategy.new_tree(&mut runner) else {
                break Stop::NoStrategy;
            };
            let input = tree.current();
            match self.run(&input, Lineage::default()) {
                Some((obs, args, kwargs)) => {
                    let fresh = self.new_arcs(&obs);
                    if fresh.is_empty() {
                        since_new += 1;
                        continue;
                    }
                    since_new = 0;
                    let (input, obs, args, kwargs) =
                        self.shrink(&mut *tree, &fresh, input, obs, args, kwargs);
                    self.keep(input, obs, args, kwargs, false, Lineage::default());
                }
                None => since_new += 1,
            }
        };
        // 3. More inputs for the reservoir, when the search ended early: mutants that the
        // cases miss are tried against them.
        while self.reservoir.len() < self.budget.reservoir
            && self.calls < self.budget.calls
            && self.started.elapsed().as_secs_f64() < self.budget.seconds
            && stop != Stop::NoStrategy
        {
            let Ok(tree) = strategy.new_tree(&mut runner) else {
                break;
            };
            let input = tree.current();
            if let Some((obs, args, kwargs)) = self.run(&input, Lineage::default()) {
                if !self.new_arcs(&obs).is_empty() {
                    self.keep(input, obs, args, kwargs, false, Lineage::default());
                }
            }
            since_new += 1;
            if since_new > 4 * self.budget.reservoir {
                break;
            }
        }
        let total = self.total.clone().unwrap_or_default();
        let found = Found {
            cases: self.cases,
            covered: self.covered.intersection(&total).copied().collect(),
            total,
            calls: self.calls,
            seconds: self.started.elapsed().as_secs_f64(),
            stop,
            discarded: self.discarded,
            reservoir: self.reservoir,
            seeds: seeds.len(),
            seeds_usable,
        };
        (found, self.runner)
    }

    /// Shrinks a kept input with its value tree while it still covers `fresh` and stays a
    /// usable case: the test reads `f([0])`, not `f([-8812, 77, 3])`.
    fn shrink(
        &mut self,
        tree: &mut dyn ValueTree<Value = Input>,
        fresh: &BTreeSet<Arc>,
        mut input: Input,
        mut obs: Observed,
        mut args: String,
        mut kwargs: String,
    ) -> (Input, Observed, String, String) {
        let mut spent = 0;
        while spent < self.budget.shrink_calls && self.calls < self.budget.calls && tree.simplify()
        {
            spent += 1;
            let candidate = tree.current();
            if candidate.size() > input.size() {
                tree.complicate();
                continue;
            }
            match self.run(&candidate, Lineage::default()) {
                Some((o, a, k)) if fresh.is_subset(&o.arcs) => {
                    input = candidate;
                    obs = o;
                    args = a;
                    kwargs = k;
                }
                _ => {
                    tree.complicate();
                }
            }
        }
        (input, obs, args, kwargs)
    }

    /// A small change to a kept input: one parameter's value nudged, or drawn afresh.
    fn mutate(
        &self,
        base: &Input,
        runner: &mut TestRunner,
        strategy: &BoxedStrategy<Input>,
    ) -> Input {
        let mut out = base.clone();
        let slots: Vec<usize> = (0..out.values.len())
            .filter(|&i| out.values[i].is_some())
            .collect();
        let r = runner.rng().next_u32();
        if slots.is_empty() || r.is_multiple_of(4) {
            // A fresh value for one parameter (or a default left out, given).
            let i = r as usize / 4 % out.values.len().max(1);
            // A slot left out is given a value: a draw that leaves it out too is drawn
            // again (a few times), since leaving it out changes nothing.
            let mut draw = strategy.new_tree(runner).map(|t| t.current());
            for _ in 0..4 {
                match &draw {
                    Ok(f)
                        if i < f.values.len()
                            && f.values[i].is_none()
                            && out.values[i].is_none() =>
                    {
                        draw = strategy.new_tree(runner).map(|t| t.current());
                    }
                    _ => break,
                }
            }
            if let Ok(fresh) = draw {
                if i < out.values.len() {
                    out.values[i].clone_from(&fresh.values[i]);
                }
                if out.varargs.is_empty() {
                    out.varargs = fresh.varargs;
                }
                if out.extra_kwargs.is_empty() || r.is_multiple_of(8) {
                    out.extra_kwargs = fresh.extra_kwargs;
                }
            }
            return out;
        }
        if r % 8 == 1 && splice(&mut out, runner.rng().next_u32() as usize) {
            return out;
        }
        if r % 8 == 3 && position_into(&mut out, runner.rng().next_u32() as usize) {
            return out;
        }
        let i = slots[(r as usize / 4) % slots.len()];
        if let Some(v) = out.values[i].take() {
            out.values[i] = Some(nudge(v, self.pool, runner));
        }
        out
    }
}

/// A value of one argument put into another: a string, or a prefix of it, or a number of
/// one argument replaces one of the same kind in another, or joins it when it is a
/// container. Code that relates its arguments (`name.startswith(prefix)`, `key in
/// mapping`, `lo <= x`) needs inputs that agree with each other, which independent draws
/// seldom give. `false` when the input has no two arguments to relate.
fn splice(input: &mut Input, r: usize) -> bool {
    let mut slots: Vec<&mut PyVal> = input
        .values
        .iter_mut()
        .flatten()
        .chain(input.varargs.iter_mut())
        .chain(input.extra_kwargs.iter_mut().map(|(_, v)| v))
        .collect();
    if slots.len() < 2 {
        return false;
    }
    let from = r % slots.len();
    let to = (from + 1 + r / 7 % (slots.len() - 1)) % slots.len();
    let mut found = Vec::new();
    scalars(slots[from], &mut found);
    let Some(picked) = (!found.is_empty()).then(|| found[r / 61 % found.len()].clone()) else {
        return false;
    };
    let v = match picked {
        // A prefix, at times: what `startswith` and abbreviations compare; or one of its
        // characters (`c in set(password)`, a table of characters).
        PyVal::Str(s) if s.chars().count() > 1 && !(r / 997).is_multiple_of(3) => {
            let chars: Vec<char> = s.chars().collect();
            // `r`'s bits mixed: the choices below must not follow the ones above.
            let h = r.wrapping_mul(2_654_435_761) >> 5;
            if h.is_multiple_of(2) {
                PyVal::Str(chars[h / 2 % chars.len()].to_string())
            } else {
                PyVal::Str(chars[..=(h / 2 % (chars.len() - 1))].iter().collect())
            }
        }
        other => other,
    };
    let target = &mut *slots[to];
    let mut same: Vec<&mut PyVal> = Vec::new();
    scalars(target, &mut same);
    same.retain(|x| std::mem::discriminant(&**x) == std::mem::discriminant(&v));
    if !same.is_empty() {
        let k = r / 13 % same.len();
        let slot = same.swap_remove(k);
        // Text joins the other's now and then, before or after it, rather than replacing
        // it: what `x.endswith(suffix)` and `needle in x` ask of two arguments.
        *slot = match (std::mem::replace(slot, PyVal::None), v) {
            (PyVal::Str(old), PyVal::Str(new)) if r / 5 % 3 == 1 => PyVal::Str(old + &new),
            (PyVal::Str(old), PyVal::Str(new)) if r / 5 % 3 == 2 => PyVal::Str(new + &old),
            (_, new) => new,
        };
        return true;
    }
    match target {
        PyVal::List(items) | PyVal::Iter(items) | PyVal::Set(items) | PyVal::FrozenSet(items) => {
            items.push(v);
            true
        }
        _ => false,
    }
}

/// A position inside one argument (a string, bytes, a list or tuple) given to an integer
/// of another argument, itself or inside it (`text[at]`, `span = (start, end)`): code that
/// walks text from an index (`while src[pos] in " \t"`) branches on what stands there,
/// and an independently drawn integer seldom falls inside the text, still less on its one
/// space or mark. Half the time the position is one of a character that is no ASCII letter
/// or digit, or one beside it (what looks one step ahead or back sees it), else any
/// position, the end included. `false` when there is no such pair of arguments.
fn position_into(input: &mut Input, r: usize) -> bool {
    let slots: Vec<&mut PyVal> = input.values.iter_mut().flatten().collect();
    let sized: Vec<usize> = (0..slots.len())
        .filter(|&i| {
            matches!(
                slots[i],
                PyVal::Str(_) | PyVal::Bytes(_) | PyVal::List(_) | PyVal::Tuple(_)
            )
        })
        .collect();
    if sized.is_empty() || slots.len() < 2 {
        return false;
    }
    let from = sized[r % sized.len()];
    let (len, odd): (usize, Vec<usize>) = match &*slots[from] {
        PyVal::Str(s) => (
            s.chars().count(),
            s.chars()
                .enumerate()
                .filter(|(_, c)| !c.is_ascii_alphanumeric())
                .map(|(i, _)| i)
                .collect(),
        ),
        PyVal::Bytes(b) => (
            b.len(),
            (0..b.len())
                .filter(|&i| !b[i].is_ascii_alphanumeric())
                .collect(),
        ),
        PyVal::List(xs) | PyVal::Tuple(xs) => (xs.len(), Vec::new()),
        _ => return false,
    };
    let at = if !odd.is_empty() && (r / 61).is_multiple_of(2) {
        let at = odd[r / 122 % odd.len()];
        match r / 122 / odd.len() % 4 {
            0 => at.saturating_sub(1),
            1 => (at + 1).min(len),
            _ => at,
        }
    } else {
        r / 122 % (len + 1)
    };
    let mut ints: Vec<&mut PyVal> = Vec::new();
    for (i, v) in slots.into_iter().enumerate() {
        if i != from {
            scalars(v, &mut ints);
        }
    }
    ints.retain(|v| matches!(**v, PyVal::Int(_)));
    if ints.is_empty() {
        return false;
    }
    let k = r / 7 % ints.len();
    *ints.swap_remove(k) = PyVal::Int(at as i128);
    true
}

/// The strings, bytes and integers inside a value, in order.
fn scalars<'v>(v: &'v mut PyVal, out: &mut Vec<&'v mut PyVal>) {
    if matches!(v, PyVal::Str(_) | PyVal::Bytes(_) | PyVal::Int(_)) {
        out.push(v);
        return;
    }
    match v {
        PyVal::List(xs)
        | PyVal::Tuple(xs)
        | PyVal::Set(xs)
        | PyVal::FrozenSet(xs)
        | PyVal::Iter(xs) => xs.iter_mut().for_each(|x| scalars(x, out)),
        PyVal::Dict(kv) => kv.iter_mut().for_each(|(k, x)| {
            scalars(k, out);
            scalars(x, out);
        }),
        PyVal::Namespace(kv) => kv.iter_mut().for_each(|(_, x)| scalars(x, out)),
        _ => {}
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// One small change to a value: numbers moved by one or to a constant, a constant put into
/// a string, a character or an element dropped or duplicated, a container reversed.
fn nudge(v: PyVal, pool: &Pool, runner: &mut TestRunner) -> PyVal {
    let r = runner.rng().next_u32() as usize;
    match v {
        PyVal::Int(i) => match r % 4 {
            0 => PyVal::Int(i + 1),
            1 => PyVal::Int(i - 1),
            2 if !pool.ints.is_empty() => PyVal::Int(pool.ints[r / 4 % pool.ints.len()]),
            _ => PyVal::Int(-i),
        },
        PyVal::Float(f) => match r % 3 {
            0 => PyVal::Float(f + 1.0),
            1 => PyVal::Float(-f),
            _ => PyVal::Float(f / 2.0),
        },
        PyVal::Bool(b) => PyVal::Bool(!b),
        PyVal::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            match r % 4 {
                0 if !pool.strs.is_empty() => {
                    let c = &pool.strs[r / 4 % pool.strs.len()];
                    let at = if chars.is_empty() {
                        0
                    } else {
                        r / 16 % (chars.len() + 1)
                    };
                    let mut out: String = chars[..at].iter().collect();
                    out.push_str(c);
                    out.extend(&chars[at..]);
                    PyVal::Str(out)
                }
                1 if !chars.is_empty() => {
                    let at = r / 4 % chars.len();
                    PyVal::Str(
                        chars
                            .iter()
                            .enumerate()
                            .filter(|(j, _)| *j != at)
                            .map(|(_, c)| *c)
                            .collect(),
                    )
                }
                2 => PyVal::Str(chars.iter().rev().collect()),
                _ => {
                    let extra = [' ', 'a', 'Z', '1', ',', '-', '.'][r / 4 % 7];
                    let mut out = s;
                    out.push(extra);
                    PyVal::Str(out)
                }
            }
        }
        PyVal::List(items) => PyVal::List(nudge_items(items, pool, runner, r)),
        PyVal::Iter(items) => PyVal::Iter(nudge_items(items, pool, runner, r)),
        // A set's items are distinct: one dropped or changed, never duplicated.
        PyVal::Set(items) => PyVal::Set(nudge_items(items, pool, runner, no_dup(r))),
        PyVal::FrozenSet(items) => PyVal::FrozenSet(nudge_items(items, pool, runner, no_dup(r))),
        PyVal::Tuple(items) if items.is_empty() => PyVal::Tuple(items),
        PyVal::Tuple(mut items) => {
            let at = r / 4 % items.len();
            let v = items[at].clone();
            items[at] = nudge(v, pool, runner);
            PyVal::Tuple(items)
        }
        // One argument of a standard object moved (a day, a digit of a decimal); the
        // constructor refuses what is out of range, and such an input is not kept.
        PyVal::Std(t, mut args) if !args.is_empty() => {
            let at = r / 4 % args.len();
            let v = args[at].clone();
            args[at] = nudge(v, pool, runner);
            PyVal::Std(t, args)
        }
        // One attribute changed; a text one now and then made one of the function's
        // strings whole (`token.type == 'percentage'`).
        PyVal::Namespace(mut kv) if !kv.is_empty() => {
            let at = r / 4 % kv.len();
            let v = kv[at].1.clone();
            kv[at].1 = match v {
                PyVal::Str(_) if r.is_multiple_of(3) && !pool.strs.is_empty() => {
                    PyVal::Str(pool.strs[r / 16 % pool.strs.len()].clone())
                }
                v => nudge(v, pool, runner),
            };
            PyVal::Namespace(kv)
        }
        PyVal::Dict(mut kv) => {
            if !kv.is_empty() && r.is_multiple_of(2) {
                let at = r / 2 % kv.len();
                kv.remove(at);
            } else if let Some((k, v)) = kv.first().cloned() {
                let nv = nudge(v, pool, runner);
                kv[0] = (k, nv);
            }
            PyVal::Dict(kv)
        }
        other => other,
    }
}

/// `r` with [`nudge_items`]' duplication (`r % 4 == 1`) turned into a change of an item.
fn no_dup(r: usize) -> usize {
    if r % 4 == 1 {
        r + 2
    } else {
        r
    }
}

fn nudge_items(
    mut items: Vec<PyVal>,
    pool: &Pool,
    runner: &mut TestRunner,
    r: usize,
) -> Vec<PyVal> {
    if items.is_empty() {
        return items;
    }
    let at = r / 4 % items.len();
    match r % 4 {
        0 => {
            items.remove(at);
        }
        1 => {
            let v = items[at].clone();
            items.insert(at, v);
        }
        2 if (r / 4).is_multiple_of(2) => items.reverse(),
        2 => sort_scalars(&mut items),
        _ => {
            let v = items[at].clone();
            items[at] = nudge(v, pool, runner);
        }
    }
    items
}

/// The integers inside the items put in ascending order where they stand, and the strings
/// likewise: a list sorted, and a list of pairs made a table of ascending, disjoint
/// intervals (`[(5, 9), (1, 3)]` becomes `[(1, 3), (5, 9)]`, `[(9, 1), (4, 2)]` becomes
/// `[(1, 2), (4, 9)]`), which binary searches and merges need and random draws never are.
fn sort_scalars(items: &mut [PyVal]) {
    let mut found = Vec::new();
    for v in items.iter_mut() {
        scalars(v, &mut found);
    }
    let mut ints: Vec<i128> = Vec::new();
    let mut strs: Vec<String> = Vec::new();
    for v in &found {
        match &**v {
            PyVal::Int(i) => ints.push(*i),
            PyVal::Str(s) => strs.push(s.clone()),
            _ => {}
        }
    }
    ints.sort_unstable();
    strs.sort_unstable();
    let (mut ints, mut strs) = (ints.into_iter(), strs.into_iter());
    for v in found {
        match v {
            PyVal::Int(i) => *i = ints.next().unwrap_or(*i),
            PyVal::Str(s) => {
                if let Some(t) = strs.next() {
                    *s = t;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An input of positional values only.
    fn positional(values: Vec<PyVal>) -> Input {
        Input {
            values: values.into_iter().map(Some).collect(),
            varargs: vec![],
            extra_kwargs: vec![],
        }
    }

    /// A stand-in for the worker: `f(x) = "neg" if x < 0 else "big" if x > 50 else "small"`,
    /// raising `ValueError` on 13; arcs named by line.
    struct Fake;

    impl Runner for Fake {
        fn call(&mut self, args: &str, _kwargs: &str) -> Observed {
            let x: i128 = args.trim_matches(['[', ']']).parse().unwrap_or(i128::MIN);
            let all: BTreeSet<Arc> = [
                (1, 2),
                (2, 3),
                (2, 4),
                (4, 5),
                (4, 6),
                (6, 7),
                (6, -1),
                (3, -1),
                (5, -1),
                (7, -1),
            ]
            .into_iter()
            .collect();
            let (result, hit): (CallResult, Vec<Arc>) = if x == i128::MIN {
                (
                    CallResult::Raised {
                        type_name: "TypeError".into(),
                        message: String::new(),
                    },
                    vec![(1, 2)],
                )
            } else if x < 0 {
                (ret("neg"), vec![(1, 2), (2, 3), (3, -1)])
            } else if x > 50 {
                (ret("big"), vec![(1, 2), (2, 4), (4, 5), (5, -1)])
            } else if x == 13 {
                (
                    CallResult::Raised {
                        type_name: "ValueError".into(),
                        message: "13".into(),
                    },
                    vec![(1, 2), (2, 4), (4, 6), (6, 7), (7, -1)],
                )
            } else {
                (ret("small"), vec![(1, 2), (2, 4), (4, 6), (6, -1)])
            };
            Observed {
                result,
                arcs: hit.into_iter().collect(),
                all_arcs: Some(all),
            }
        }
    }

    fn ret(s: &str) -> CallResult {
        CallResult::Returned {
            value: Value::str(s),
            repr: format!("{s:?}"),
        }
    }

    /// Arguments `[N]` with N a negative integer.
    fn is_negative(args: &str) -> bool {
        args.trim_matches(['[', ']'])
            .parse::<i128>()
            .is_ok_and(|n| n < 0)
    }

    /// A float literal not finite or at least 1e12 in size.
    fn is_extreme(x: &str) -> bool {
        x.starts_with("float(")
            || x.parse::<f64>()
                .is_ok_and(|f| !f.is_finite() || f.abs() >= 1e12)
    }

    /// `f(...)` that never returns (a timeout) when `hangs(args)`; every call it was given
    /// is recorded.
    struct Hangs {
        hangs: fn(&str) -> bool,
        calls: Vec<String>,
    }

    impl Hangs {
        /// On floats: hangs when either is not finite or at least 1e12 in size.
        fn on_extremes() -> Hangs {
            Hangs {
                hangs: |args| args.trim_matches(['[', ']']).split(", ").any(is_extreme),
                calls: Vec::new(),
            }
        }

        /// On one integer: hangs when it is negative (`while n: n >>= 8`).
        fn below_zero() -> Hangs {
            Hangs {
                hangs: is_negative,
                calls: Vec::new(),
            }
        }

        /// On a list as the first argument (`while s[i:i + 1] != ''` never ends for one).
        fn on_a_list_first() -> Hangs {
            Hangs {
                hangs: is_list_first,
                calls: Vec::new(),
            }
        }
    }

    fn is_list_first(args: &str) -> bool {
        args.starts_with("[[")
    }

    /// A positional parameter of this type.
    fn param(name: &str, ty: Ty) -> ParamSpec {
        ParamSpec {
            name: name.into(),
            kind: ParamKind::PositionalOrKeyword,
            ty,
            has_default: false,
        }
    }

    /// A whole search with the default budget against a runner that hangs.
    fn search_hanging(params: &[ParamSpec], pool: &Pool, hangs: Hangs, seed: u8) -> (Found, Hangs) {
        let raises = BTreeSet::new();
        Search::new(params, pool, &raises, Budget::default(), hangs).run_all([seed; 32])
    }

    impl Runner for Hangs {
        fn call(&mut self, args: &str, _kwargs: &str) -> Observed {
            self.calls.push(args.to_string());
            let all: BTreeSet<Arc> = [(1, 2), (2, 3), (2, -1), (3, -1)].into_iter().collect();
            let (result, hit) = if (self.hangs)(args) {
                (
                    CallResult::Failed {
                        status: execution::Status::Timeout.as_str().into(),
                        detail: String::new(),
                    },
                    vec![],
                )
            } else {
                (ret("ok"), vec![(1, 2), (2, -1)])
            };
            Observed {
                result,
                arcs: hit.into_iter().collect(),
                all_arcs: Some(all),
            }
        }
    }

    /// After a call timed out on an extreme value, no extreme value is given to that
    /// parameter again: at most one timeout per parameter, where each edge value (1e300,
    /// -1e300, inf, -inf, NaN) would have cost one.
    #[test]
    fn extreme_values_are_not_run_again_where_one_hung_a_call() {
        let params = [param("v", Ty::Float), param("h", Ty::Float)];
        let (found, runner) = search_hanging(&params, &Pool::default(), Hangs::on_extremes(), 3);
        let timeouts = runner
            .calls
            .iter()
            .filter(|c| c.trim_matches(['[', ']']).split(", ").any(is_extreme))
            .count();
        assert!(
            (1..=params.len()).contains(&timeouts),
            "{timeouts} timeouts: {:?}",
            runner.calls
        );
        assert!(
            found.discarded.get(SKIPPED_HUNG).copied().unwrap_or(0) > 0,
            "{:?}",
            found.discarded
        );
    }

    /// After a call with no extreme value timed out, no negative integer goes to the
    /// parameters that held one: a single timeout where every negative edge and draw would
    /// have cost one.
    #[test]
    fn negative_integers_are_not_run_again_where_one_hung_a_call() {
        let pool = Pool {
            ints: vec![-3, 4],
            ..Pool::default()
        };
        let (found, runner) = search_hanging(&[param("n", Ty::Int)], &pool, Hangs::below_zero(), 5);
        let negatives = runner.calls.iter().filter(|c| is_negative(c)).count();
        assert_eq!(negatives, 1, "{:?}", runner.calls);
        assert!(found.discarded.get(SKIPPED_HUNG).copied().unwrap_or(0) > 0);
    }

    /// A type that hung a call where another type had let calls end is not given to that
    /// parameter again (when no extreme or negative value explains the hang): a text-or-list
    /// parameter costs one timeout, not one per list drawn.
    #[test]
    fn a_type_that_hung_a_call_is_not_run_again_there() {
        let params = [
            param("s", Ty::Union(vec![Ty::Str, Ty::List(Box::new(Ty::Int))])),
            param("end", Ty::Int),
        ];
        let (found, runner) =
            search_hanging(&params, &Pool::default(), Hangs::on_a_list_first(), 7);
        let lists = runner.calls.iter().filter(|c| is_list_first(c)).count();
        // A list with an extreme or negative integer beside it bans those instead, so a
        // few may hang; without the rule dozens do.
        assert!((1..=4).contains(&lists), "{lists}: {:?}", runner.calls);
        assert!(runner.calls.iter().any(|c| c.starts_with("[\"")));
        assert!(found.discarded.get(SKIPPED_HUNG).copied().unwrap_or(0) > 0);
    }

    #[test]
    fn reaches_every_arc_and_keeps_few_cases() {
        let params = vec![ParamSpec {
            name: "x".into(),
            kind: ParamKind::PositionalOrKeyword,
            ty: Ty::Int,
            has_default: false,
        }];
        let pool = Pool {
            ints: vec![13, 12, 14],
            ..Pool::default()
        };
        let raises: BTreeSet<String> = ["ValueError".to_string()].into_iter().collect();
        let (found, _) =
            Search::new(&params, &pool, &raises, Budget::default(), Fake).run_all([1; 32]);
        assert_eq!(found.stop, Stop::FullCoverage, "{found:?}");
        assert_eq!(found.covered, found.total);
        assert!(
            found.cases.len() <= 4 + Budget::default().edge_cases,
            "{}",
            found.cases.len()
        );
        assert!(found.cases.iter().any(|c| matches!(&c.result, CallResult::Raised { type_name, .. } if type_name == "ValueError")));
    }

    #[test]
    fn same_seed_same_cases() {
        let params = vec![ParamSpec {
            name: "x".into(),
            kind: ParamKind::PositionalOrKeyword,
            ty: Ty::Int,
            has_default: false,
        }];
        let pool = Pool::default();
        let raises = BTreeSet::new();
        let a = Search::new(&params, &pool, &raises, Budget::default(), Fake)
            .run_all([9; 32])
            .0;
        let b = Search::new(&params, &pool, &raises, Budget::default(), Fake)
            .run_all([9; 32])
            .0;
        let args = |f: &Found| f.cases.iter().map(|c| c.args.clone()).collect::<Vec<_>>();
        assert_eq!(args(&a), args(&b));
    }

    /// `f(x)`: deep (line 3) only for `3990 <= x <= 4010`, deeper (line 4) only for 4001;
    /// anything but an int is a `TypeError`.
    struct Narrow;

    impl Runner for Narrow {
        fn call(&mut self, args: &str, _kwargs: &str) -> Observed {
            let all: BTreeSet<Arc> = [(1, 2), (2, 3), (2, -1), (3, 4), (3, -1), (4, -1)]
                .into_iter()
                .collect();
            let (result, hit): (CallResult, Vec<Arc>) = match args
                .trim_matches(['[', ']'])
                .parse::<i128>()
            {
                Err(_) => (
                    CallResult::Raised {
                        type_name: "TypeError".into(),
                        message: String::new(),
                    },
                    vec![(1, 2)],
                ),
                Ok(4001) => (ret("deeper"), vec![(1, 2), (2, 3), (3, 4), (4, -1)]),
                Ok(x) if (3990..=4010).contains(&x) => (ret("deep"), vec![(1, 2), (2, 3), (3, -1)]),
                Ok(_) => (ret("shallow"), vec![(1, 2), (2, -1)]),
            };
            Observed {
                result,
                arcs: hit.into_iter().collect(),
                all_arcs: Some(all),
            }
        }
    }

    /// One positional-or-keyword `int` parameter `x`.
    fn one_int_param() -> Vec<ParamSpec> {
        vec![param("x", Ty::Int)]
    }

    #[test]
    fn observed_seeds_run_first_and_their_mutations_keep_the_lineage() {
        let params = one_int_param();
        let pool = Pool::default();
        let raises = BTreeSet::new();
        let budget = Budget {
            calls: 300,
            ..Budget::default()
        };
        let seed = |v: PyVal| positional(vec![v]);
        let seeds = vec![
            seed(PyVal::Str("not an int".into())),
            seed(PyVal::Int(4000)),
        ];
        let (found, _) = Search::new(&params, &pool, &raises, budget, Narrow)
            .with_seeds(seeds)
            .run_all([3; 32]);
        assert_eq!(found.stop, Stop::FullCoverage, "{found:?}");
        assert_eq!((found.seeds, found.seeds_usable), (2, 1));
        // The usable seed is the first case, kept as it was.
        let first = &found.cases[0];
        assert_eq!(first.args, "[4000]");
        assert!(first.from_observed && first.parent.is_none() && !first.is_edge);
        // 4001 is a mutation of it (or of a mutation of it), from observed too.
        let deeper = found
            .cases
            .iter()
            .find(|c| c.arcs.contains(&(3, 4)))
            .expect("a case reaches line 4");
        assert!(deeper.from_observed, "{deeper:?}");
        let mut at = deeper.parent.expect("a mutation");
        while let Some(p) = found.cases[at].parent {
            at = p;
        }
        assert_eq!(at, 0);
        // Edge values and drawn inputs are not from observed.
        assert!(found
            .cases
            .iter()
            .filter(|c| c.is_edge)
            .all(|c| !c.from_observed && c.parent.is_none()));
        assert!(found
            .reservoir
            .iter()
            .any(|c| c.from_observed && c.args == "[4000]"));

        // The same budget without the seed: the narrow range is not found.
        let (alone, _) = Search::new(&params, &pool, &raises, budget, Narrow).run_all([3; 32]);
        assert_ne!(alone.stop, Stop::FullCoverage);
        assert!(!alone.covered.contains(&(3, 4)));
        assert!(alone.cases.iter().all(|c| !c.from_observed));
        assert_eq!((alone.seeds, alone.seeds_usable), (0, 0));
    }

    #[test]
    fn positions_of_one_argument_go_into_an_integer() {
        let (mut hits_odd, mut hits_before) = (0, 0);
        for r in 0..200usize {
            let mut input = Input {
                values: vec![
                    Some(PyVal::Str("ab\u{301}cd".into())),
                    Some(PyVal::Int(-40)),
                ],
                ..Input::default()
            };
            assert!(position_into(&mut input, r.wrapping_mul(2_654_435_761)));
            let Some(PyVal::Int(at)) = input.values[1] else {
                panic!("{input:?}")
            };
            assert!((0..=5).contains(&at), "{at}");
            hits_odd += usize::from(at == 2);
            hits_before += usize::from(at == 1);
        }
        // Half the time at the mark or beside it: on it most, before it some.
        assert!(hits_odd >= 40, "{hits_odd}");
        assert!(hits_before >= 25, "{hits_before}");
        // An integer inside another argument takes it too (`span = (start, end)`).
        let mut span = Input {
            values: vec![
                Some(PyVal::Str("  ab ".into())),
                Some(PyVal::Tuple(vec![PyVal::Int(-3), PyVal::Int(99)])),
            ],
            ..Input::default()
        };
        assert!(position_into(&mut span, 12_344));
        let Some(PyVal::Tuple(ends)) = &span.values[1] else {
            panic!("{span:?}")
        };
        assert!(
            ends.iter().any(|e| matches!(e, PyVal::Int(0..=5))),
            "{ends:?}"
        );
        let mut none = Input {
            values: vec![Some(PyVal::Str("abc".into())), Some(PyVal::Str("x".into()))],
            ..Input::default()
        };
        assert!(
            !position_into(&mut none, 3),
            "no integer to give a position to"
        );
    }

    #[test]
    fn sorting_makes_lists_ascending_and_pairs_disjoint_intervals() {
        let mut pairs = vec![
            PyVal::Tuple(vec![PyVal::Int(9), PyVal::Int(1)]),
            PyVal::Tuple(vec![PyVal::Int(4), PyVal::Int(2)]),
        ];
        sort_scalars(&mut pairs);
        assert_eq!(PyVal::List(pairs).literal(), "[(1, 2), (4, 9)]");
        let mut words = vec![
            PyVal::Str("b".into()),
            PyVal::Int(3),
            PyVal::Str("a".into()),
        ];
        sort_scalars(&mut words);
        assert_eq!(PyVal::List(words).literal(), "[\"a\", 3, \"b\"]");
    }

    #[test]
    fn splicing_puts_one_arguments_value_into_another() {
        let input = positional(vec![
            PyVal::Str("abc".into()),
            PyVal::List(vec![PyVal::Str("x".into()), PyVal::Int(4)]),
        ]);
        let mut seen = BTreeSet::new();
        for r in 0..4000 {
            let mut out = input.clone();
            if splice(&mut out, r) {
                seen.insert(
                    out.values
                        .iter()
                        .flatten()
                        .map(PyVal::literal)
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
        }
        // The string, a prefix of it or one of its characters, in place of the list's
        // string; the list's string or number put into the first argument (a number beside
        // a string: none of its kind there, and a string is no container, so nothing).
        for want in [
            "\"abc\" [\"abc\", 4]",
            "\"abc\" [\"a\", 4]",
            "\"abc\" [\"ab\", 4]",
            "\"abc\" [\"c\", 4]",
            "\"x\" [\"x\", 4]",
            // Or joined to it, after or before (`x.endswith(suffix)`, `needle in x`).
            "\"abc\" [\"xabc\", 4]",
            "\"abc\" [\"abcx\", 4]",
            "\"abcx\" [\"x\", 4]",
        ] {
            assert!(seen.contains(want), "{want} not in {seen:?}");
        }
        assert!(seen.iter().all(|s| !s.starts_with('4')), "{seen:?}");
        let mut one = positional(vec![PyVal::Int(1)]);
        assert!(!splice(&mut one, 7), "one argument has nothing to relate");
    }

    #[test]
    fn keywords_a_body_reads_are_passed_mostly_all() {
        let params = vec![ParamSpec {
            name: "fields".into(),
            kind: ParamKind::VarKeyword,
            ty: Ty::Record(vec![("a".into(), Ty::Int), ("b".into(), Ty::Str)]),
            has_default: false,
        }];
        let (pool, raises) = (Pool::default(), BTreeSet::new());
        let search = Search::new(&params, &pool, &raises, Budget::default(), Fake);
        let strategy = search.input_strategy();
        let mut runner = TestRunner::deterministic();
        let mut others = 0;
        let all = (0..100)
            .filter(|_| {
                let input = strategy.new_tree(&mut runner).unwrap().current();
                let names: Vec<&str> = input.extra_kwargs.iter().map(|(k, _)| k.as_str()).collect();
                others += usize::from(names.contains(&"other"));
                names.len() == 2 && names.iter().all(|n| ["a", "b"].contains(n))
            })
            .count();
        assert!(
            (50..100).contains(&all),
            "{all} of 100 with both keywords alone"
        );
        // Now and then an unknown one beside them (`unknown = set(options) - {...}`).
        assert!(others > 0);
    }

    #[test]
    fn seeds_take_at_most_half_the_call_budget() {
        let params = one_int_param();
        let pool = Pool::default();
        let raises = BTreeSet::new();
        let budget = Budget {
            calls: 10,
            ..Budget::default()
        };
        let seeds: Vec<Input> = (0..20)
            .map(|i| Input {
                values: vec![Some(PyVal::Int(i))],
                varargs: vec![],
                extra_kwargs: vec![],
            })
            .collect();
        let (found, _) = Search::new(&params, &pool, &raises, budget, Narrow)
            .with_seeds(seeds)
            .run_all([3; 32]);
        assert_eq!(found.seeds_usable, 5);
        assert!(found.calls <= 10);
        assert_eq!(
            found
                .cases
                .iter()
                .filter(|c| c.from_observed && c.parent.is_none())
                .count(),
            5
        );
    }

    #[test]
    fn keyword_after_an_omitted_default() {
        let p = |name: &str, kind, has_default| ParamSpec {
            name: name.into(),
            kind,
            ty: Ty::Int,
            has_default,
        };
        let params = vec![
            p("a", ParamKind::PositionalOrKeyword, false),
            p("b", ParamKind::PositionalOrKeyword, true),
            p("c", ParamKind::PositionalOrKeyword, true),
            p("d", ParamKind::KeywordOnly, true),
        ];
        let input = Input {
            values: vec![
                Some(PyVal::Int(1)),
                None,
                Some(PyVal::Int(3)),
                Some(PyVal::Int(4)),
            ],
            varargs: vec![],
            extra_kwargs: vec![],
        };
        assert_eq!(
            input.literals(&params),
            ("[1]".to_string(), "{\"c\": 3, \"d\": 4}".to_string())
        );
    }

    /// `f(text, keep=False)`: a whitespace-only line is kept only with `keep` (line 3),
    /// else dropped (line 4); other text goes to line 5. Records every call's arguments.
    struct Blank {
        calls: Vec<(String, String)>,
    }

    impl Runner for Blank {
        fn call(&mut self, args: &str, kwargs: &str) -> Observed {
            self.calls.push((args.to_string(), kwargs.to_string()));
            let all: BTreeSet<Arc> = [(1, 2), (1, 5), (2, 3), (2, 4), (3, -1), (4, -1), (5, -1)]
                .into_iter()
                .collect();
            // The literals are Python's: JSON once its two booleans are spelt JSON's way.
            let json = |s: &str| -> serde_json::Value {
                serde_json::from_str(&s.replace("True", "true").replace("False", "false"))
                    .unwrap_or_default()
            };
            let (v, kw) = (json(args), json(kwargs));
            let text = v.get(0).and_then(serde_json::Value::as_str);
            let keep = v
                .get(1)
                .or_else(|| kw.get("keep"))
                .and_then(serde_json::Value::as_bool);
            let hit: Vec<Arc> = match (text, keep) {
                (Some(t), k) if !t.is_empty() && t.trim().is_empty() => {
                    if k == Some(true) {
                        vec![(1, 2), (2, 3), (3, -1)]
                    } else {
                        vec![(1, 2), (2, 4), (4, -1)]
                    }
                }
                (Some(_), _) => vec![(1, 5), (5, -1)],
                (None, _) => {
                    return Observed {
                        result: CallResult::Raised {
                            type_name: "TypeError".into(),
                            message: String::new(),
                        },
                        arcs: [(1, -1)].into_iter().collect(),
                        all_arcs: Some(all),
                    }
                }
            };
            Observed {
                result: ret("x"),
                arcs: hit.into_iter().collect(),
                all_arcs: Some(all),
            }
        }
    }

    #[test]
    fn a_decision_reached_one_way_is_turned_and_no_call_is_made_twice() {
        let params = vec![
            param("text", Ty::Str),
            ParamSpec {
                has_default: true,
                ..param("keep", Ty::Bool)
            },
        ];
        let pool = Pool {
            strs: vec![" ".into()],
            ..Pool::default()
        };
        let budget = Budget {
            calls: 200,
            reservoir: 0,
            ..Budget::default()
        };
        let mut reached = 0;
        for seed in 0..8u8 {
            let (found, runner) = Search::new(
                &params,
                &pool,
                &BTreeSet::new(),
                budget,
                Blank { calls: Vec::new() },
            )
            .run_all([seed; 32]);
            let distinct: BTreeSet<&(String, String)> = runner.calls.iter().collect();
            assert_eq!(
                distinct.len(),
                runner.calls.len(),
                "a call made twice (seed {seed})"
            );
            reached += usize::from(found.stop == Stop::FullCoverage);
        }
        assert_eq!(reached, 8, "full coverage under every seed");
    }
}
