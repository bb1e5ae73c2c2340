//! Resources whose values the server renders into the page and the browser reads back.
//!
//! Leptos's default resource codec reads them with serde_json's string reader, while a
//! server function's answer is read with its byte reader; each type's decoder was then
//! compiled into the WASM twice, once per reader. [`Json`] reads both ways with the byte
//! reader, so every page's resources cost one decoder per type.

use leptos::prelude::*;
use leptos::server::codee::{Decoder, Encoder};
use serde::{de::DeserializeOwned, Serialize};

/// JSON as Leptos's default codec writes it, read back with serde_json's byte reader.
pub struct Json;

impl<T: Serialize> Encoder<T> for Json {
    type Error = serde_json::Error;
    type Encoded = String;

    fn encode(val: &T) -> Result<String, serde_json::Error> {
        serde_json::to_string(val)
    }
}

impl<T: DeserializeOwned> Decoder<T> for Json {
    type Error = serde_json::Error;
    type Encoded = str;

    fn decode(val: &str) -> Result<T, serde_json::Error> {
        serde_json::from_slice(val.as_bytes())
    }
}

/// A resource read with [`Json`].
pub type Loaded<T> = Resource<T, Json>;

/// [`Resource::new`], read with [`Json`]: `fetcher` runs for each value of `source`.
#[track_caller]
pub fn load<S, T, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Loaded<T>
where
    S: PartialEq + Clone + Send + Sync + 'static,
    T: Serialize + DeserializeOwned + Send + Sync + 'static,
    Fut: std::future::Future<Output = T> + Send + 'static,
{
    Resource::new_with_options(source, fetcher, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_reads_back_what_it_writes() {
        let value: Result<Vec<String>, crate::error::AppError> = Ok(vec!["é \"q\"".into()]);
        let text = <Json as Encoder<_>>::encode(&value).expect("encodes");
        let back: Result<Vec<String>, crate::error::AppError> =
            <Json as Decoder<_>>::decode(&text).expect("decodes");
        assert_eq!(back, value);
        let bad: Result<u8, _> = <Json as Decoder<u8>>::decode("{");
        assert!(bad.is_err());
    }
}
