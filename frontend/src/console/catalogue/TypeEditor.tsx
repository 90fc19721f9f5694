// A type of the active organisation, new or edited: its rules, price, flags and booking questions,
// and once it exists its schedule. The API checks everything; its refusals land on the form's
// fields by their path (`body.bookingRules.minNoticeMinutes`).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useResourceTypes } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, ResourceType } from '../../api/types.js';
import { submitted, useFormState } from '../form-state.js';
import { organisationCurrency } from '../organisations/currency.js';
import { TypeSchedule } from '../schedule/schedule-editor.js';
import { Check, Field, FormError, LoadError, Loading, Select, SubmitActions } from '../ui.js';
import { modeWords } from './catalogue-lists.js';
import { ASSIGNMENT_WORDS, pools, RULES, type TypeForm, typeBody, typeForm } from './type-form-data.js';
import {
  type QuestionDraft,
  questionDrafts,
  questionFieldNames,
  questionsBody,
  TypeQuestions,
} from './type-questions.js';

export function TypeEditor(props: { org: Organisation }) {
  const { id } = useParams();
  const typeId = id ? Number(id) : null;
  const types = useResourceTypes();
  if (typeId !== null && types.isPending) return <Loading />;
  if (typeId !== null && types.isError) return <LoadError error={types.error} />;
  const existing = typeId !== null ? types.data?.find((t) => t.id === typeId) : undefined;
  if (typeId !== null && !existing)
    return (
      <main className="page">
        <p className="empty">
          This type does not exist (any more). <Link to="/app/types">All types</Link>
        </p>
      </main>
    );
  return <TypeFormScreen key={existing?.id ?? 'new'} org={props.org} existing={existing} />;
}

type FormState = ReturnType<typeof useFormState<TypeForm>>;
type Bound = ReturnType<FormState['bind']>;

/** Creates the type or saves the edit, with its questions; then back to the list. */
function useSaveType(existing: ResourceType | undefined, form: TypeForm, questions: QuestionDraft[]) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () =>
      existing
        ? unwrap(
            authed.PATCH('/api/resource-types/{id}', {
              params: { path: { id: existing.id } },
              body: { ...typeBody(form), questions: questionsBody(questions) },
            }),
          )
        : unwrap(
            authed.POST('/api/resource-types', {
              body: { ...typeBody(form), questions: questionsBody(questions) },
            }),
          ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.resourceTypes() });
      navigate('/app/types');
    },
  });
}

/** The fields the form shows a refusal on; the form error lists the rest. */
function shownFields(questions: QuestionDraft[]) {
  return [
    'name',
    'description',
    'minBookingDuration',
    'bufferTime',
    'bookingMode',
    'assignment',
    'customerInfoFields',
    'reminders',
    // Each reminder typed (the API takes 3; a longer list is refused as a whole).
    ...Array.from({ length: 10 }, (_, i) => [`reminders.${i}`, `reminders.${i}.minutesBefore`]).flat(),
    'priceAmount',
    'priceCurrency',
    ...RULES.map(([k]) => `bookingRules.${k}`),
    ...questionFieldNames(questions),
  ];
}

function TypeFormScreen(props: { org: Organisation; existing: ResourceType | undefined }) {
  const { org, existing } = props;
  const state = useFormState(() => typeForm(existing, org));
  const { values: form, bind } = state;
  const [questions, setQuestions] = useState(() => questionDrafts(existing?.questions));
  const save = useSaveType(existing, form, questions);
  const errors = fieldErrors(save.error);
  const field = bind(errors);
  return (
    <main className="page">
      <p>
        <Link to="/app/types">All types</Link>
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New type'}</h1>
      <form noValidate onSubmit={submitted(save.mutate)}>
        <TypeBasics field={field} errors={errors} pooled={pools(form.bookingMode)} />
        <TypeQuestions drafts={questions} errors={errors} onChange={setQuestions} />
        <RulesFieldset state={state} errors={errors} />
        <PriceFieldset org={org} state={state} field={field} errors={errors} />
        <OptionsFieldset field={field} errors={errors} />
        {save.isError ? <FormError error={save.error} shown={shownFields(questions)} /> : null}
        <SubmitActions pending={save.isPending} label={existing ? 'Save type' : 'Create type'} />
      </form>
      {existing ? (
        <TypeSchedule org={org} type={existing} />
      ) : (
        <p className="hint">Opening hours and dates with other hours are set once the type exists.</p>
      )}
    </main>
  );
}

/** What the type is: its name and description, length, buffer, booking mode and customer fields. */
function TypeBasics(props: { field: Bound; errors: Record<string, string>; pooled: boolean }) {
  const { field, errors, pooled } = props;
  return (
    <>
      <Field label="Name" {...field.text('name')} />
      <Field label="Description" required={false} {...field.text('description')} />
      <div className="grid-2">
        <Field label="Length (minutes)" type="number" min={1} {...field.text('minBookingDuration')} />
        <Field
          label="Buffer around each booking (minutes)"
          type="number"
          min={0}
          {...field.text('bufferTime')}
        />
      </div>
      <Select label="How customers book" {...field.text('bookingMode')}>
        {Object.entries(modeWords).map(([mode, words]) => (
          <option key={mode} value={mode}>
            {words[0]!.toUpperCase() + words.slice(1)}
          </option>
        ))}
      </Select>
      {pooled ? (
        <Select
          label="How a booking of any free one picks its resource"
          hint="Weights (round robin) and daily caps are set on each resource."
          {...field.text('assignment')}
        >
          {Object.entries(ASSIGNMENT_WORDS).map(([strategy, words]) => (
            <option key={strategy} value={strategy}>
              {words}
            </option>
          ))}
        </Select>
      ) : null}
      <Field
        label="Extra customer fields (comma separated, e.g. phone, licencePlate)"
        required={false}
        {...field.text('customerInfoFields')}
        error={
          errors.customerInfoFields ??
          Object.entries(errors).find(([k]) => k.startsWith('customerInfoFields.'))?.[1]
        }
      />
    </>
  );
}

function OptionsFieldset({ field, errors }: { field: Bound; errors: Record<string, string> }) {
  return (
    <fieldset>
      <legend>Options</legend>
      <Check label="Customers may join a waitlist when it is full" {...field.check('waitlistEnabled')} />
      <Check label="Customers may book a series" {...field.check('recurringEnabled')} />
      <Field
        label="Reminder mails (minutes before the start, comma separated, e.g. 1440, 60)"
        hint="Up to 3, each 15 to 10080 (7 days); to the customer of each confirmed booking."
        required={false}
        {...field.text('reminders')}
        error={errors.reminders ?? Object.entries(errors).find(([k]) => k.startsWith('reminders.'))?.[1]}
      />
    </fieldset>
  );
}

function RulesFieldset({ state, errors }: { state: FormState; errors: Record<string, string> }) {
  const { values: form, setValues: setForm } = state;
  return (
    <fieldset>
      <legend>Booking rules (empty: no rule)</legend>
      <div className="grid-2">
        {RULES.map(([key, label]) => (
          <Field
            key={key}
            name={`bookingRules.${key}`}
            label={label}
            type="number"
            min={0}
            required={false}
            value={form.rules[key]}
            error={errors[`bookingRules.${key}`]}
            onChange={(v) => setForm((f) => ({ ...f, rules: { ...f.rules, [key]: v } }))}
          />
        ))}
      </div>
    </fieldset>
  );
}

function PriceFieldset(props: {
  org: Organisation;
  state: FormState;
  field: Bound;
  errors: Record<string, string>;
}) {
  const { org, field, errors } = props;
  const { values: form, set } = props.state;
  return (
    <fieldset>
      <legend>Price</legend>
      <Check label="This type has a price" {...field.check('pricingEnabled')} />
      {form.pricingEnabled ? (
        <>
          <div className="grid-2">
            <Field
              name="priceAmount"
              label="Price"
              type="number"
              min={0}
              step="0.01"
              value={form.price}
              error={errors.priceAmount}
              onChange={set('price')}
            />
            <Field
              label="Currency (e.g. EUR)"
              hint={`${org.name} counts in ${organisationCurrency(org)} (Payments): agent policies too.`}
              {...field.text('priceCurrency')}
              onChange={(v) => set('priceCurrency')(v.toUpperCase())}
            />
          </div>
          <Check label="Customers pay when they book" {...field.check('paymentRequired')} />
        </>
      ) : null}
    </fieldset>
  );
}
