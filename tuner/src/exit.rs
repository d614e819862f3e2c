//! The tool's exit codes, one enum with the meaning of each (the README's "Exit codes",
//! `docs/promises.md`; `cargo fptune --help` lists them from here).

/// How `cargo fptune` ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitCode {
    /// A configuration was found (or the subcommand succeeded).
    Success,
    /// Bad command line or `[package.metadata.fptune]`, no knobs, no checks.
    Usage,
    /// The requirement exceeds the digits of the reference itself.
    Requirement,
    /// The original crate does not build or run.
    Original,
    /// Interrupted (Ctrl-C); scratch dirs were removed.
    Interrupted,
    /// The crate uses code fptune cannot convert for its builds: the message says where, and
    /// what to write instead.
    Conversion,
    /// Internal error.
    Internal,
    /// A second Ctrl-C: the process ends at once (the shell's code for `SIGINT`, which `--help`
    /// does not list).
    InterruptedTwice,
}

impl ExitCode {
    /// The exit codes `--help` and the README list, in the order of their numbers.
    pub const LISTED: [ExitCode; 7] = [
        ExitCode::Success,
        ExitCode::Usage,
        ExitCode::Requirement,
        ExitCode::Original,
        ExitCode::Interrupted,
        ExitCode::Conversion,
        ExitCode::Internal,
    ];

    /// The process's exit status.
    pub fn code(self) -> i32 {
        match self {
            ExitCode::Success => 0,
            ExitCode::Usage => 2,
            ExitCode::Requirement => 3,
            ExitCode::Original => 4,
            ExitCode::Interrupted => 5,
            ExitCode::Conversion => 6,
            ExitCode::Internal => 70,
            ExitCode::InterruptedTwice => 130,
        }
    }

    /// What it means, as `--help` says it.
    pub fn meaning(self) -> &'static str {
        match self {
            ExitCode::Success => "a configuration was found (the subcommand succeeded)",
            ExitCode::Usage => "usage or configuration error (bad option, [package.metadata.fptune], no knobs or no checks)",
            ExitCode::Requirement => "the requirement exceeds the digits of the reference itself",
            ExitCode::Original => "the original crate fails to build or to run",
            ExitCode::Interrupted => "interrupted (Ctrl-C): scratch directories were removed",
            ExitCode::Conversion => {
                "fptune cannot convert some of the crate's code for its builds: the message says where\n      and what to write instead"
            }
            ExitCode::Internal => "internal error",
            ExitCode::InterruptedTwice => "interrupted twice (Ctrl-C again): ended at once",
        }
    }

    /// The list `--help` ends with: `Exit codes:`, then each code with its meaning.
    pub fn help() -> String {
        let mut text = String::from("Exit codes:\n");
        for code in ExitCode::LISTED {
            text.push_str(&format!("  {:<3} {}\n", code.code(), code.meaning()));
        }
        text
    }

    /// Ends the process with this code.
    pub fn exit(self) -> ! {
        std::process::exit(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_code_with_its_number() {
        let help = ExitCode::help();
        assert!(help.starts_with("Exit codes:\n  0   a configuration was found"), "{help}");
        assert!(help.contains("\n  70  internal error\n"), "{help}");
        assert!(help.contains("\n  6   fptune cannot convert some of the crate's code for its builds: the message says where\n      and what to write instead\n"), "{help}");
        let numbers: Vec<i32> = ExitCode::LISTED.iter().map(|c| c.code()).collect();
        assert_eq!(numbers, [0, 2, 3, 4, 5, 6, 70]);
    }
}
