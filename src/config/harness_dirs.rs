//! The harnesses' own folders in the `harvest` section (`claude_code_dir`,
//! `codex_home`, …), keyed by the registry, so a new harness brings its key
//! without a field here.
//!
//! Owns: reading and writing those keys. Must not: resolve a folder (each
//! harness's folder does that, with its variable and its default).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::harness::Harness;

/// The folders a person set, by harness.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HarnessDirs(BTreeMap<Harness, PathBuf>);

impl HarnessDirs {
    /// The folder set for `harness`, if any.
    pub fn get(&self, harness: Harness) -> Option<&PathBuf> {
        self.0.get(&harness)
    }

    pub fn set(&mut self, harness: Harness, dir: PathBuf) {
        self.0.insert(harness, dir);
    }
}

/// Every harness's key, unset ones as null, so `memsync config` lists them all.
impl Serialize for HarnessDirs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Harness::ALL.len()))?;
        for h in Harness::ALL {
            map.serialize_entry(h.dir_key(), &self.0.get(&h))?;
        }
        map.end()
    }
}

/// Takes the keys of the section no other field took: a harness's key, or
/// an error naming the unknown one.
impl<'de> Deserialize<'de> for HarnessDirs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(DirsVisitor)
    }
}

struct DirsVisitor;

impl<'de> Visitor<'de> for DirsVisitor {
    type Value = HarnessDirs;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the harnesses' folders")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HarnessDirs, A::Error> {
        let mut dirs = HarnessDirs::default();
        while let Some(key) = map.next_key::<String>()? {
            let Some(harness) = Harness::ALL.into_iter().find(|h| h.dir_key() == key) else {
                let keys: Vec<&str> = Harness::ALL.iter().map(|h| h.dir_key()).collect();
                return Err(de::Error::custom(format!(
                    "unknown field `{key}` (a harness's folder is one of {})",
                    keys.join(", ")
                )));
            };
            if let Some(dir) = map.next_value::<Option<PathBuf>>()? {
                dirs.set(harness, dir);
            }
        }
        Ok(dirs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HarvestConfig;

    #[test]
    fn every_harness_folder_key_is_read_and_an_unknown_key_is_refused_by_name() {
        for h in Harness::ALL {
            let yaml = format!("{}: /x/{h}\n", h.dir_key());
            let cfg: HarvestConfig = serde_yaml::from_str(&yaml).expect("known key");
            assert_eq!(cfg.dirs.get(h), Some(&PathBuf::from(format!("/x/{h}"))));
        }
        let err = serde_yaml::from_str::<HarvestConfig>("claude_dir: /x\n").unwrap_err();
        assert!(
            err.to_string().contains("unknown field `claude_dir`"),
            "{err}"
        );
        let cfg: HarvestConfig =
            serde_yaml::from_str("pi_dir: null\nenabled: true\n").expect("null");
        assert!(cfg.enabled && cfg.dirs.get(Harness::Pi).is_none());
    }

    #[test]
    fn unset_folders_are_listed_as_null() {
        let v = serde_yaml::to_value(HarvestConfig::default()).expect("serializes");
        for h in Harness::ALL {
            assert_eq!(v.get(h.dir_key()), Some(&serde_yaml::Value::Null), "{h}");
        }
    }
}
