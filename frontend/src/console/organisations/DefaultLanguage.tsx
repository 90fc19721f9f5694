// The organisation's defaultLocale (OWNER, ADMIN): the language of its booking pages and customer
// mails when the customer's own choice (?lang=, the browser, their booking) names none we speak.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation } from '../../api/types.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from '../../i18n/languages.js';
import { submitted } from '../form-state.js';
import { SubmitActions } from '../ui.js';

export function DefaultLanguageForm(props: { org: Organisation }) {
  const { org } = props;
  const queryClient = useQueryClient();
  const [locale, setLocale] = useState<Language>(org.defaultLocale);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PATCH('/api/organisations/{id}', {
          params: { path: { id: org.id } },
          body: { defaultLocale: locale },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.organisations() }),
  });
  return (
    <form onSubmit={submitted(save.mutate)}>
      <h2>Language</h2>
      <div className="field">
        <label htmlFor="f-default-locale">Booking page and customer mails</label>
        <select
          id="f-default-locale"
          value={locale}
          aria-describedby="f-default-locale-hint"
          onChange={(e) => setLocale(e.target.value as Language)}
        >
          {LANGUAGES.map((code) => (
            <option key={code} value={code}>
              {LANGUAGE_NAMES[code]}
            </option>
          ))}
        </select>
        <p className="hint" id="f-default-locale-hint">
          Used when the customer’s browser or booking names none of these languages.
        </p>
      </div>
      {save.isError ? (
        <p role="alert" className="error">
          {errorText(save.error)}
        </p>
      ) : null}
      {save.isSuccess ? <p role="status">Saved.</p> : null}
      <SubmitActions pending={save.isPending} label="Save language" />
    </form>
  );
}
