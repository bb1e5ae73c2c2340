//! Where the controller's data lives ([`Database`]: an SQLite file or a PostgreSQL URL,
//! shown without its password) and which SQL dialect it speaks.

use std::path::PathBuf;

/// Where the controller's data lives.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// An SQLite file (one controller process).
    Sqlite(PathBuf),
    /// A PostgreSQL database shared by every controller replica.
    Postgres(String),
}

impl std::fmt::Debug for Database {
    /// Never shows a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl std::fmt::Display for Database {
    /// The file, or the URL with its password hidden.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(p) => write!(f, "{}", p.display()),
            Database::Postgres(url) => match url::Url::parse(url) {
                Ok(mut u) => {
                    if u.password().is_some() {
                        let _ = u.set_password(Some("***"));
                    }
                    write!(f, "{u}")
                }
                Err(_) => f.write_str("postgres://<unparsable URL>"),
            },
        }
    }
}

impl std::str::FromStr for Database {
    type Err = String;

    /// A `postgres://` (or `postgresql://`) URL, else the path of an SQLite file.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            url::Url::parse(s).map_err(|e| format!("not a valid PostgreSQL URL: {e}"))?;
            Ok(Database::Postgres(s.to_string()))
        } else if s.is_empty() {
            Err("empty: give an SQLite file path or a postgres:// URL".into())
        } else {
            Ok(Database::Sqlite(PathBuf::from(
                s.strip_prefix("sqlite://").unwrap_or(s),
            )))
        }
    }
}

/// The SQL dialect of the connected engine (the few places where the engines differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite 3.35+ (RETURNING, UPSERT).
    Sqlite,
    /// PostgreSQL 12+.
    Postgres,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_parse_from_paths_and_urls_and_hide_passwords() {
        let db: Database = "postgres://mc:s3cret@db:5432/mc".parse().unwrap();
        assert_eq!(db.to_string(), "postgres://mc:***@db:5432/mc");
        assert!(!format!("{db:?}").contains("s3cret"));
        assert_eq!(
            ".state/c.db".parse::<Database>().unwrap(),
            Database::Sqlite(".state/c.db".into())
        );
        assert!("".parse::<Database>().is_err());
    }
}
