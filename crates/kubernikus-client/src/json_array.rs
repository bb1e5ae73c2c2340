//! A JSON array as the API answered it: checked to be well-formed JSON and an array, but
//! not decoded, so that a proxy answering its own caller in JSON can write it on verbatim
//! instead of decoding and encoding every element (the list's server function).

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A well-formed JSON array kept as its text; serde_json serialises it verbatim.
#[derive(Clone, Debug)]
pub struct JsonArray(Box<RawValue>);

impl JsonArray {
    /// The array's JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The array decoded as `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }
}

impl PartialEq for JsonArray {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<'de> Deserialize<'de> for JsonArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        if raw.get().trim_start().starts_with('[') {
            Ok(JsonArray(raw))
        } else {
            Err(D::Error::custom("expected a JSON array"))
        }
    }
}

impl Serialize for JsonArray {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_is_kept_as_sent_and_written_verbatim() {
        let text = r#"[{"name":"a","size":3}, {"name":"b"}]"#;
        let a: JsonArray = serde_json::from_str(&format!("  {text}\n")).unwrap();
        assert_eq!(a.get(), text);
        #[derive(serde::Serialize)]
        struct Page<'a> {
            items: &'a JsonArray,
            total: usize,
        }
        let page = Page {
            items: &a,
            total: 2,
        };
        let wrapped = serde_json::to_string(&page).unwrap();
        assert_eq!(wrapped, format!(r#"{{"items":{text},"total":2}}"#));
        #[derive(serde::Deserialize, PartialEq, Debug)]
        struct Named {
            name: String,
        }
        let names: Vec<Named> = a.decode().unwrap();
        assert_eq!(names[1], Named { name: "b".into() });
    }

    #[test]
    fn what_is_not_a_well_formed_array_is_refused() {
        for bad in [r#"{"name":"a"}"#, "42", r#"[{"name":"a"]"#, "[1,]", ""] {
            assert!(serde_json::from_str::<JsonArray>(bad).is_err(), "{bad:?}");
        }
    }
}
