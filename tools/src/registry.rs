//! The registry of games: each game lists the verbs it offers, and the
//! command line is built from that list, so a game's module reaches the
//! command line through one line in [`crate::GAMES`] (README: "Adding a game").

use clap::{ArgMatches, Args, Command, FromArgMatches};

/// What a finished command tells the shell.
pub type Outcome = anyhow::Result<std::process::ExitCode>;

/// The verbs every game may offer, as `tabula <verb> <game>`, in help order.
pub const VERBS: [(&str, &str); 8] = [
    (
        "build",
        "Solve a game's state space and write its table file",
    ),
    ("query", "Look up a position: exact value and optimal moves"),
    (
        "play",
        "Play a game over its dialogue on stdin/stdout, or against a person",
    ),
    (
        "serve",
        "Answer a game's requests on stdin/stdout as a built-in player",
    ),
    (
        "referee",
        "Referee games against a player over the game's own protocol",
    ),
    (
        "verify",
        "Measure how the built-in players fare, as a reproducible report",
    ),
    (
        "sweep",
        "Solve a family of variants, one row per parameter set, as a reproducible report",
    ),
    (
        "perft",
        "Count the move sequences of each length from a position, to check another program's move generation",
    ),
];

type Run = Box<dyn Fn(&ArgMatches) -> Outcome + Send + Sync>;

/// One thing a game offers: a verb (or an extra of its own) with its arguments.
pub struct Verb {
    /// The verb's name: one of [`VERBS`], or an extra (`tabula <game> <extra>`).
    pub name: &'static str,
    about: &'static str,
    command: fn(Command) -> Command,
    defaults: Vec<(&'static str, &'static str)>,
    run: Run,
}

impl Verb {
    /// The verb `name`, whose arguments are `A`, run by `run`.
    pub fn new<A: Args + FromArgMatches + 'static>(
        name: &'static str,
        about: &'static str,
        run: fn(A) -> Outcome,
    ) -> Verb {
        Verb {
            name,
            about,
            command: A::augment_args,
            defaults: Vec::new(),
            run: Box::new(move |matches| run(A::from_arg_matches(matches)?)),
        }
    }

    /// Sets this game's default for a shared option (`--games`, `--seed`, `--timeout`...).
    pub fn default(mut self, option: &'static str, value: &'static str) -> Verb {
        self.defaults.push((option, value));
        self
    }

    /// The clap command of this verb, with `about` as its description.
    pub fn command(&self, about: String) -> Command {
        // The Args derive sets its doc comment as the about: override it after.
        let mut command = (self.command)(Command::new(self.name)).about(about);
        for (option, value) in &self.defaults {
            command = command.mut_arg(*option, |arg| arg.default_value(*value));
        }
        command
    }

    /// Runs the verb with its parsed arguments.
    pub fn run(&self, matches: &ArgMatches) -> Outcome {
        (self.run)(matches)
    }

    /// The verb's one-line description.
    pub fn about(&self) -> &'static str {
        self.about
    }
}

/// A game and what it offers.
pub struct GameEntry {
    /// The game's name on the command line.
    pub name: &'static str,
    /// One line about the game.
    pub about: &'static str,
    /// Other names it answers to on the command line (the contest's own).
    pub aliases: Vec<&'static str>,
    /// The standard verbs it offers.
    pub verbs: Vec<Verb>,
    /// Its own extras, as `tabula <game> <extra>`.
    pub extras: Vec<Verb>,
    /// The built-in players that `--agent`, `--players` and `--opponent` name.
    pub agents: Vec<&'static str>,
    /// Kept out of listings and help (the test-only example game).
    pub hidden: bool,
    /// How `tabula info`, `check` and `export` read its table files, if it has any.
    pub tables: Option<TableHooks>,
    /// How `tabula replay` draws its logged games.
    pub draw: Option<tabula_verify::replay::ShowGame>,
    /// How `tabula analyze` and `tabula explore` value its positions.
    pub analyst: Option<tabula_verify::analysis::MakeAnalyst>,
}

/// A game's record check of a table file whose header names the game.
pub type CheckTable =
    fn(tabula_tables::Table, tabula_solver::retrograde::Progress<'_>) -> anyhow::Result<usize>;

/// What a table file's header parameters mean to the game (`Kalah(3,3), ...`),
/// once checked against the layout and size the game gives them.
pub type DescribeTable = fn(&tabula_tables::Table) -> anyhow::Result<String>;

/// A game's export of a table file: every position it holds as a line
/// of JSON, reporting the records done; returns the lines written.
pub type ExportTable = fn(
    tabula_tables::Table,
    &mut dyn std::io::Write,
    tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64>;

/// A game's readings of its table files.
#[derive(Clone, Copy)]
pub struct TableHooks {
    /// The header's parameters, checked and named (`tabula info`).
    pub describe: DescribeTable,
    /// Re-derives every record, reporting the work done (of twice the
    /// records); returns how many were checked (`tabula check`).
    pub check: CheckTable,
    /// Writes every record (`tabula export`).
    pub export: ExportTable,
}

impl GameEntry {
    /// A game offering nothing yet.
    pub fn new(name: &'static str, about: &'static str) -> GameEntry {
        GameEntry {
            name,
            about,
            aliases: Vec::new(),
            verbs: Vec::new(),
            extras: Vec::new(),
            agents: Vec::new(),
            hidden: false,
            tables: None,
            draw: None,
            analyst: None,
        }
    }

    /// Names the drawing of its logged games on the replay page.
    pub fn draws(mut self, show: tabula_verify::replay::ShowGame) -> GameEntry {
        self.draw = Some(show);
        self
    }

    /// Names its analyst (`tabula analyze`, `tabula explore`).
    pub fn analyzes(mut self, analyst: tabula_verify::analysis::MakeAnalyst) -> GameEntry {
        self.analyst = Some(analyst);
        self
    }

    /// Adds a standard verb.
    pub fn verb(mut self, verb: Verb) -> GameEntry {
        assert!(
            VERBS.iter().any(|(v, _)| *v == verb.name),
            "{} is not a standard verb",
            verb.name
        );
        self.verbs.push(verb);
        self
    }

    /// Adds an extra of the game's own.
    pub fn extra(mut self, verb: Verb) -> GameEntry {
        self.extras.push(verb);
        self
    }

    /// Registers how its table files are read (`tabula info`, `check` and `export`).
    pub fn tables(mut self, hooks: TableHooks) -> GameEntry {
        self.tables = Some(hooks);
        self
    }

    /// Names its built-in players, for `tabula games`.
    pub fn agents(mut self, names: &[&'static str]) -> GameEntry {
        self.agents.extend_from_slice(names);
        self
    }

    /// Lets the command line name the game `alias` too (`pseudotonga` for `tonga`).
    pub fn alias(mut self, alias: &'static str) -> GameEntry {
        self.aliases.push(alias);
        self
    }

    /// The game's name, with its aliases in brackets: `tonga (pseudotonga)`.
    pub fn names(&self) -> String {
        match self.aliases.is_empty() {
            true => self.name.to_string(),
            false => format!("{} ({})", self.name, self.aliases.join(", ")),
        }
    }

    /// Keeps the game out of listings and help.
    pub fn hidden(mut self) -> GameEntry {
        self.hidden = true;
        self
    }

    /// The standard verb `name`, if the game offers it.
    pub fn find(&self, name: &str) -> Option<&Verb> {
        self.verbs.iter().find(|v| v.name == name)
    }
}

/// Adds `tabula <verb> <game>` for every verb and game, and `tabula <game> <extra>`.
pub fn commands(mut root: Command, games: &[GameEntry]) -> Command {
    for (verb, about) in VERBS {
        // Without its game, a verb is a one-line error naming the games.
        let mut command = Command::new(verb).about(about).subcommand_required(true);
        for game in games {
            if let Some(v) = game.find(verb) {
                command = command.subcommand(
                    v.command(format!("{} ({})", v.about(), game.about))
                        .name(game.name)
                        .visible_aliases(game.aliases.clone())
                        .hide(game.hidden),
                );
            }
        }
        root = root.subcommand(command);
    }
    for game in games.iter().filter(|g| !g.extras.is_empty()) {
        let mut command = Command::new(game.name)
            .about(format!("{}: tools of its own", game.about))
            .subcommand_required(true)
            .visible_aliases(game.aliases.clone())
            .hide(game.hidden);
        for extra in &game.extras {
            command = command.subcommand(extra.command(extra.about().to_string()));
        }
        root = root.subcommand(command);
    }
    root
}

/// Runs the registered verb named by `matches`, if it is one.
pub fn dispatch(games: &[GameEntry], matches: &ArgMatches) -> Option<Outcome> {
    let (first, sub) = matches.subcommand()?;
    let (second, args) = sub.subcommand()?;
    if VERBS.iter().any(|(v, _)| *v == first) {
        let game = games.iter().find(|g| g.name == second)?;
        let verb = game.find(first)?;
        crate::common::set_dispatched(first, Some(game.name));
        return Some(verb.run(args));
    }
    let game = games.iter().find(|g| g.name == first)?;
    let extra = game.extras.iter().find(|e| e.name == second)?;
    crate::common::set_dispatched(second, Some(game.name));
    Some(extra.run(args))
}

/// The games that offer `verb` (a standard verb or none: all), with their
/// aliases: `ioiwari, kalah, tonga (pseudotonga), ...`, for a hint.
pub fn game_names(games: &[GameEntry], verb: Option<&str>) -> String {
    let offers = |game: &GameEntry| verb.is_none_or(|verb| game.find(verb).is_some());
    let names: Vec<String> = games
        .iter()
        .filter(|g| !g.hidden && offers(g))
        .map(GameEntry::names)
        .collect();
    names.join(", ")
}

/// `tabula games`: every game and the verbs it offers.
pub fn listing(games: &[GameEntry]) -> String {
    let mut out = String::new();
    for game in games.iter().filter(|g| !g.hidden) {
        let mut verbs: Vec<&str> = game.verbs.iter().map(|v| v.name).collect();
        verbs.extend(game.extras.iter().map(|e| e.name));
        out.push_str(&format!(
            "{:<10} {}\n{:<10} verbs: {}\n",
            game.name,
            game.about,
            "",
            verbs.join(", ")
        ));
        if !game.aliases.is_empty() {
            out.push_str(&format!("{:<10} also: {}\n", "", game.aliases.join(", ")));
        }
        if !game.agents.is_empty() {
            out.push_str(&format!("{:<10} players: {}\n", "", game.agents.join(", ")));
        }
    }
    out
}
