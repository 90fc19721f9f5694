// A console form's values in one state, and what each Field or Check takes from them: its name,
// its value, its setter and the API's message for it (fieldErrors of the form's mutation).
import { type FormEvent, useState } from 'react';

type KeysOf<T, V> = { [K in keyof T]: T[K] extends V ? K : never }[keyof T] & string;

export function useFormState<T extends object>(initial: T | (() => T)) {
  const [values, setValues] = useState<T>(initial);
  const set =
    <K extends keyof T>(key: K) =>
    (value: T[K]) =>
      setValues((v) => ({ ...v, [key]: value }));
  /** The props of the field named like `key` (its `name` is the API's field name). */
  const bind = (errors: Record<string, string>) => ({
    text: <K extends KeysOf<T, string>>(key: K) => ({
      name: key,
      value: values[key] as string,
      error: errors[key],
      onChange: set(key) as (value: string) => void,
    }),
    check: <K extends KeysOf<T, boolean>>(key: K) => ({
      name: key,
      checked: values[key] as boolean,
      error: errors[key],
      onChange: set(key) as (checked: boolean) => void,
    }),
  });
  return { values, setValues, set, bind };
}

/** A submit handler that keeps the page (no reload) and runs `action`. */
export const submitted = (action: () => void) => (e: FormEvent) => {
  e.preventDefault();
  action();
};
