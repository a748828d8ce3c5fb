//! `Serialize` and `Deserialize` of the input structs `#[skill]` generates, written once as
//! generic functions over the tuple of the struct's fields instead of a serde derive per
//! skill. They behave as the derive does for a struct with named fields and
//! `deny_unknown_fields` (the schema is unchanged): the same calls into the serializer and
//! deserializer, the same errors (`missing field`, `duplicate field`, `invalid length`,
//! `unknown field`), a missing `Option` read as `None`, and declared defaults filled in.
//! An unknown key fails the fast path so that the dispatcher's lenient reading reports it.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{
    DeserializeSeed, Deserializer, Error as DeError, Expected, IgnoredAny, MapAccess, SeqAccess,
    Visitor,
};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// The declared defaults of an input struct's fields, one `Option<fn() -> T>` per field:
/// `(Option<fn() -> A>, Option<fn() -> B>)` for `{ a: A, b: B }`. Implemented for tuples of
/// up to 12 fields (`MAX_INPUT_FIELDS` of `toolwright-macros`); a skill with more arguments gets
/// serde's derives. The fields are read through this type (not the fields' own tuple) so that
/// an argument type that cannot be read is reported at that argument's default, which the
/// expansion spans at the argument's type.
pub trait InputFields<'de>: Copy {
    /// The fields as one tuple: `(A, B)`.
    type Value;
    /// One `Option` per field: what has been read so far.
    #[doc(hidden)]
    type Slots: Default;

    /// Reads the value of field `index` into its slot; an error if it was read already.
    #[doc(hidden)]
    fn read_value<M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        names: &'static [&'static str],
        map: &mut M,
    ) -> Result<(), M::Error>;

    /// The fields from their slots: missing ones from their default, an `Option` as `None`,
    /// others an error naming the first one missing.
    #[doc(hidden)]
    fn finish<E: DeError>(
        self,
        slots: Self::Slots,
        names: &'static [&'static str],
    ) -> Result<Self::Value, E>;

    /// The fields from a sequence, in order: a missing one from its default, else an
    /// `invalid length` error.
    #[doc(hidden)]
    fn read_seq<A: SeqAccess<'de>>(
        self,
        seq: &mut A,
        expected: &dyn Expected,
    ) -> Result<Self::Value, A::Error>;
}

/// References to the fields of an input struct, in order: `(&A, &B, &C)`.
pub trait InputFieldRefs {
    /// Serializes each field under its name.
    #[doc(hidden)]
    fn serialize_each<S: SerializeStruct>(
        self,
        state: &mut S,
        names: &'static [&'static str],
    ) -> Result<(), S::Error>;
}

/// `Serialize` of a generated input struct: `serialize_struct(name, len)`, then each field.
pub fn serialize_input<S: Serializer, R: InputFieldRefs>(
    serializer: S,
    name: &'static str,
    names: &'static [&'static str],
    fields: R,
) -> Result<S::Ok, S::Error> {
    let mut state = serializer.serialize_struct(name, names.len())?;
    fields.serialize_each(&mut state, names)?;
    state.end()
}

/// `Deserialize` of a generated input struct named `name` with wire names `names`.
pub fn deserialize_input<'de, D: Deserializer<'de>, T: InputFields<'de, Value = V>, V>(
    deserializer: D,
    name: &'static str,
    names: &'static [&'static str],
    defaults: T,
) -> Result<V, D::Error> {
    deserializer.deserialize_struct(
        name,
        names,
        StructVisitor::<T> {
            name,
            names,
            defaults,
            marker: PhantomData,
        },
    )
}

struct StructVisitor<'de, T: InputFields<'de>> {
    name: &'static str,
    names: &'static [&'static str],
    defaults: T,
    marker: PhantomData<fn() -> &'de ()>,
}

/// `struct Name with N elements`, as the derive words an array that is too short.
struct SeqExpected<'a> {
    name: &'a str,
    len: usize,
}

impl Expected for SeqExpected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.len {
            1 => write!(f, "struct {} with 1 element", self.name),
            n => write!(f, "struct {} with {n} elements", self.name),
        }
    }
}

impl<'de, T: InputFields<'de>> Visitor<'de> for StructVisitor<'de, T> {
    type Value = T::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {}", self.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T::Value, A::Error> {
        let expected = SeqExpected {
            name: self.name,
            len: self.names.len(),
        };
        self.defaults.read_seq(&mut seq, &expected)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T::Value, A::Error> {
        let mut slots = T::Slots::default();
        while let Some(key) = map.next_key_seed(FieldKey(self.names))? {
            T::read_value(&mut slots, key, self.names, &mut map)?;
        }
        self.defaults.finish(slots, self.names)
    }
}

/// Reads a key as the derive's field identifier does with `deny_unknown_fields`: the
/// field's index, or an `unknown field` error raised while the key is read (so a path
/// tracker puts it at the key). Refused rather than ignored: the dispatcher's second,
/// lenient reading then reports the key to the model with the nearest real name.
struct FieldKey(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldKey {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldKey {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_u64<E: DeError>(self, value: u64) -> Result<Self::Value, E> {
        usize::try_from(value)
            .ok()
            .filter(|index| *index < self.0.len())
            .ok_or_else(|| {
                E::invalid_value(serde::de::Unexpected::Unsigned(value), &"a field index")
            })
    }

    fn visit_str<E: DeError>(self, value: &str) -> Result<Self::Value, E> {
        self.0
            .iter()
            .position(|name| *name == value)
            .ok_or_else(|| E::unknown_field(value, self.0))
    }

    fn visit_bytes<E: DeError>(self, value: &[u8]) -> Result<Self::Value, E> {
        self.0
            .iter()
            .position(|name| name.as_bytes() == value)
            .ok_or_else(|| E::unknown_field(&String::from_utf8_lossy(value), self.0))
    }
}

/// A field the input left out, read as the derive does: `None` for an `Option`, else a
/// `missing field` error.
fn missing_field<'de, T: Deserialize<'de>, E: DeError>(name: &'static str) -> Result<T, E> {
    T::deserialize(MissingField(name, PhantomData))
}

struct MissingField<E>(&'static str, PhantomData<E>);

impl<'de, E: DeError> Deserializer<'de> for MissingField<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

macro_rules! input_fields {
    ($($t:ident $i:tt),*) => {
        #[allow(unused_variables, non_snake_case, clippy::unused_unit)]
        impl<'de, $($t: Deserialize<'de>),*> InputFields<'de> for ($(Option<fn() -> $t>,)*) {
            type Value = ($($t,)*);
            type Slots = ($(Option<$t>,)*);

            fn read_value<M: MapAccess<'de>>(
                slots: &mut Self::Slots,
                index: usize,
                names: &'static [&'static str],
                map: &mut M,
            ) -> Result<(), M::Error> {
                match index {
                    $($i => {
                        if slots.$i.is_some() {
                            return Err(M::Error::duplicate_field(names[$i]));
                        }
                        slots.$i = Some(map.next_value::<$t>()?);
                    })*
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(())
            }

            fn finish<E: DeError>(
                self,
                slots: Self::Slots,
                names: &'static [&'static str],
            ) -> Result<Self::Value, E> {
                Ok(($(
                    match (slots.$i, self.$i) {
                        (Some(value), _) => value,
                        (None, Some(default)) => default(),
                        (None, None) => missing_field::<$t, E>(names[$i])?,
                    },
                )*))
            }

            fn read_seq<A: SeqAccess<'de>>(
                self,
                seq: &mut A,
                expected: &dyn Expected,
            ) -> Result<Self::Value, A::Error> {
                Ok(($(
                    match seq.next_element::<$t>()? {
                        Some(value) => value,
                        None => match self.$i {
                            Some(default) => default(),
                            None => return Err(A::Error::invalid_length($i, expected)),
                        },
                    },
                )*))
            }
        }

        #[allow(unused_variables, non_snake_case)]
        impl<$($t: Serialize),*> InputFieldRefs for ($(&$t,)*) {
            fn serialize_each<S: SerializeStruct>(
                self,
                state: &mut S,
                names: &'static [&'static str],
            ) -> Result<(), S::Error> {
                $(state.serialize_field(names[$i], self.$i)?;)*
                Ok(())
            }
        }
    };
}

input_fields!();
input_fields!(A0 0);
input_fields!(A0 0, A1 1);
input_fields!(A0 0, A1 1, A2 2);
input_fields!(A0 0, A1 1, A2 2, A3 3);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10);
input_fields!(A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11);

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde's derive generates (refusing unknown keys); the reference.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Derived {
        query: String,
        #[serde(default = "Derived::five")]
        limit: u32,
        archived: Option<bool>,
        #[serde(rename = "type")]
        kind: Vec<u8>,
    }

    impl Derived {
        fn five() -> u32 {
            5
        }
    }

    /// The same struct with the impls `#[skill]` writes out.
    #[derive(Debug, PartialEq)]
    struct Generic {
        query: String,
        limit: u32,
        archived: Option<bool>,
        kind: Vec<u8>,
    }

    const NAMES: &[&str] = &["query", "limit", "archived", "type"];

    impl Serialize for Generic {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            serialize_input(
                s,
                "Derived",
                NAMES,
                (&self.query, &self.limit, &self.archived, &self.kind),
            )
        }
    }

    impl<'de> Deserialize<'de> for Generic {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let (query, limit, archived, kind) = deserialize_input(
                d,
                "Derived",
                NAMES,
                (None, Some(Derived::five as fn() -> _), None, None),
            )?;
            Ok(Generic {
                query,
                limit,
                archived,
                kind,
            })
        }
    }

    fn same(json: &str) {
        let derived = serde_json::from_str::<Derived>(json).map_err(|e| e.to_string());
        let generic = serde_json::from_str::<Generic>(json).map_err(|e| e.to_string());
        match (&derived, &generic) {
            (Ok(d), Ok(g)) => {
                assert_eq!(
                    serde_json::to_string(d).unwrap(),
                    serde_json::to_string(g).unwrap(),
                    "{json}"
                );
            }
            (Err(d), Err(g)) => assert_eq!(d, g, "{json}"),
            _ => panic!("{json}: derived {derived:?}, generic {generic:?}"),
        }
        let Ok(value) = serde_json::from_str::<serde_json::Value>(json) else {
            return;
        };
        let derived = serde_path_to_error::deserialize::<_, Derived>(&value)
            .map_err(|e| (e.path().to_string(), e.inner().to_string()));
        let generic = serde_path_to_error::deserialize::<_, Generic>(&value)
            .map_err(|e| (e.path().to_string(), e.inner().to_string()));
        match (&derived, &generic) {
            (Ok(_), Ok(_)) => {}
            (Err(d), Err(g)) => assert_eq!(d, g, "{json}"),
            _ => panic!("{json}: derived {derived:?}, generic {generic:?}"),
        }
    }

    #[test]
    fn reads_and_writes_as_the_derive_does() {
        for json in [
            r#"{"query": "q", "limit": 3, "archived": true, "type": [1]}"#,
            r#"{"query": "q", "type": []}"#,
            r#"{"type": [], "query": "q", "extra": {"a": [1, 2]}, "archived": null}"#,
            r#"{"limit": 3, "type": []}"#,
            r#"{"query": "q"}"#,
            r#"{"query": "q", "query": "r", "type": []}"#,
            r#"{"query": 5, "type": []}"#,
            r#"{"query": "q", "limit": -1, "type": []}"#,
            r#"{"query": "q", "limit": 1, "type": ["x"]}"#,
            r#"["q", 2, false, [1]]"#,
            r#"["q", 2, false]"#,
            r#"["q"]"#,
            r#"[]"#,
            r#"["q", 2, false, [1], 5]"#,
            r#""text""#,
            r#"null"#,
            r#"{}"#,
            r#"{"query": "q", "type": [], "#,
        ] {
            same(json);
        }
    }

    #[test]
    fn an_empty_struct_reads_as_the_derive_does() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct DerivedEmpty {}
        struct GenericEmpty {}
        impl<'de> Deserialize<'de> for GenericEmpty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let () = deserialize_input(d, "DerivedEmpty", &[], ())?;
                Ok(GenericEmpty {})
            }
        }
        for json in ["{}", r#"{"a": 1}"#, "[]", "[1]", "3"] {
            let d = serde_json::from_str::<DerivedEmpty>(json).map_err(|e| e.to_string());
            let g = serde_json::from_str::<GenericEmpty>(json).map_err(|e| e.to_string());
            assert_eq!(d.err(), g.err(), "{json}");
        }
    }
}
