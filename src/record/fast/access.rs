//! The entries of an object and the elements of an array as the fast
//! reader hands them to serde's visitors: a comma between, the closing
//! bracket at the end, an object's key read by [`Key`].

use serde::de::{DeserializeSeed, MapAccess, SeqAccess};

use super::{De, Decline, Key};

/// The entries of an object or the elements of an array being read.
pub(super) struct Access<'a, 'de> {
    de: &'a mut De<'de>,
    first: bool,
}

impl<'a, 'de> Access<'a, 'de> {
    /// The container whose opening bracket `de` has just passed.
    pub(super) fn new(de: &'a mut De<'de>) -> Self {
        Access { de, first: true }
    }

    /// Whether another entry (`close` ends the container) follows: past its
    /// comma if it does.
    fn more(&mut self, close: u8) -> Result<bool, Decline> {
        let c = self.de.peek();
        if c == Some(close) {
            return Ok(false);
        }
        if !std::mem::replace(&mut self.first, false) {
            if c != Some(b',') {
                return Err(Decline);
            }
            self.de.i += 1;
        }
        Ok(true)
    }
}

impl<'de> MapAccess<'de> for Access<'_, 'de> {
    type Error = Decline;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Decline> {
        if !self.more(b'}')? {
            return Ok(None);
        }
        if self.de.peek() != Some(b'"') {
            return Err(Decline);
        }
        seed.deserialize(Key(&mut *self.de)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Decline> {
        if self.de.peek() != Some(b':') {
            return Err(Decline);
        }
        self.de.i += 1;
        seed.deserialize(&mut *self.de)
    }
}

impl<'de> SeqAccess<'de> for Access<'_, 'de> {
    type Error = Decline;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Decline> {
        if !self.more(b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}
