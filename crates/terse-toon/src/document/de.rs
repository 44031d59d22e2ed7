//! Reading typed values from a node (`T::deserialize(node)`).
//!
//! The rules, and so the results and error messages, are those of
//! deserializing from a `&serde_json::Value`: a node reads as what the same
//! `Value` would. Errors are `serde_json::Error`s.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, Error as _, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::Error;

use super::number::Exact;
use super::{Entries, Items, Kind, Node, Number};

impl<'de> Node<'de> {
    fn unexpected(self) -> Unexpected<'de> {
        match self.kind() {
            Kind::Null => Unexpected::Unit,
            Kind::Bool(b) => Unexpected::Bool(b),
            Kind::Number(n) => match n.exact() {
                Exact::U64(u) => Unexpected::Unsigned(u),
                Exact::I64(i) => Unexpected::Signed(i),
                Exact::F64(f) => Unexpected::Float(f),
            },
            Kind::String(s) => Unexpected::Str(s),
            Kind::Array(_) => Unexpected::Seq,
            Kind::Object(_) => Unexpected::Map,
        }
    }

    fn invalid_type(self, expected: &dyn de::Expected) -> Error {
        Error::invalid_type(self.unexpected(), expected)
    }
}

fn visit_number<'de, V: Visitor<'de>>(n: Number<'de>, visitor: V) -> Result<V::Value, Error> {
    match n.exact() {
        Exact::U64(u) => visitor.visit_u64(u),
        Exact::I64(i) => visitor.visit_i64(i),
        Exact::F64(f) => visitor.visit_f64(f),
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    len: usize,
    items: Items<'de>,
    visitor: V,
) -> Result<V::Value, Error> {
    let mut seq = Seq { items };
    let value = visitor.visit_seq(&mut seq)?;
    if seq.items.len() == 0 {
        Ok(value)
    } else {
        Err(Error::invalid_length(len, &"fewer elements in array"))
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    len: usize,
    entries: Entries<'de>,
    visitor: V,
) -> Result<V::Value, Error> {
    let mut map = Map {
        entries,
        value: None,
    };
    let value = visitor.visit_map(&mut map)?;
    if map.entries.len() == 0 {
        Ok(value)
    } else {
        Err(Error::invalid_length(len, &"fewer elements in map"))
    }
}

macro_rules! deserialize_number {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.kind() {
                Kind::Number(n) => visit_number(n, visitor),
                _ => Err(self.invalid_type(&visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Node<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(b) => visitor.visit_bool(b),
            Kind::Number(n) => visit_number(n, visitor),
            Kind::String(s) => visitor.visit_borrowed_str(s),
            Kind::Array(len) => visit_array(len, self.items(), visitor),
            Kind::Object(len) => visit_object(len, self.entries(), visitor),
        }
    }

    deserialize_number! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.as_bool() {
            Some(b) => visitor.visit_bool(b),
            None => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.as_str() {
            Some(s) => visitor.visit_borrowed_str(s),
            None => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::String(s) => visitor.visit_borrowed_str(s),
            Kind::Array(len) => visit_array(len, self.items(), visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Array(len) => visit_array(len, self.items(), visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Object(len) => visit_object(len, self.entries(), visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.kind() {
            Kind::Array(len) => visit_array(len, self.items(), visitor),
            Kind::Object(len) => visit_object(len, self.entries(), visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (variant, value) = match self.kind() {
            Kind::String(s) => (s, None),
            Kind::Object(1) => match self.entries().next() {
                Some((key, value)) => (key, Some(value)),
                None => return Err(Error::custom("an object of one entry has no entry")),
            },
            Kind::Object(_) => {
                return Err(Error::invalid_value(
                    Unexpected::Map,
                    &"map with a single key",
                ));
            }
            _ => return Err(Error::invalid_type(self.unexpected(), &"string or map")),
        };
        visitor.visit_enum(Enum { variant, value })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

struct Seq<'de> {
    items: Items<'de>,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.items
            .next()
            .map(|item| seed.deserialize(item))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Map<'de> {
    entries: Entries<'de>,
    value: Option<Node<'de>>,
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An object key. Like `serde_json`'s, it reads as a string, and also as a
/// number or boolean spelled in it (`{"7": ..}` into a `HashMap<u32, _>`).
struct Key<'de>(&'de str);

macro_rules! deserialize_parsed_key {
    ($($method:ident => $visit:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse() {
                Ok(n) => visitor.$visit(n),
                // serde_json's wording for the same case.
                Err(_) => Err(Error::custom("invalid value: expected key to be a number in quotes")),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    deserialize_parsed_key! {
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128,
        deserialize_f32 => visit_f32,
        deserialize_f64 => visit_f64,
        deserialize_bool => visit_bool,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(de::value::BorrowedStrDeserializer::<Error>::new(self.0))
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

struct Enum<'de> {
    variant: &'de str,
    value: Option<Node<'de>>,
}

impl<'de> EnumAccess<'de> for Enum<'de> {
    type Error = Error;
    type Variant = Variant<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Variant<'de>), Error> {
        let variant = seed.deserialize(Key(self.variant))?;
        Ok((variant, Variant { value: self.value }))
    }
}

struct Variant<'de> {
    value: Option<Node<'de>>,
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            None => Ok(()),
            Some(value) => de::Deserialize::deserialize(value),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => seed.deserialize(value),
            None => Err(Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(value) => match value.kind() {
                Kind::Array(len) => visit_array(len, value.items(), visitor),
                _ => Err(value.invalid_type(&"tuple variant")),
            },
            None => Err(Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(value) => match value.kind() {
                Kind::Object(len) => visit_object(len, value.entries(), visitor),
                _ => Err(value.invalid_type(&"struct variant")),
            },
            None => Err(Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
    }
}
