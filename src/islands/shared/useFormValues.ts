import { useState } from 'react';

/** A form's text values and `set(key)`, the change handler of its field `key` (an input, a textarea or a select). */
export function useFormValues<V extends Record<string, string>>(initial: V) {
  const [values, setValues] = useState<V>(initial);
  const set = (key: keyof V) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));
  return { values, setValues, set };
}
