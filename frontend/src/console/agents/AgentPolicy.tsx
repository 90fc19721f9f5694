// An agent's policy: when its calls wait for the person's approval, and its daily limits (bookings,
// cancellations, spending in the organisation's currency).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation, useAgentPolicy } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Agent, Policy, PolicyBody } from '../../api/types.js';
import { organisationCurrency } from '../organisations/currency.js';
import { Field, FormError, LoadError, Loading, Select, SubmitActions } from '../ui.js';
import { countOf, majorOf, minorOf } from './agent-values.js';

const approvalModeWords: Record<Policy['requireApproval'], string> = {
  never: 'Never: it acts within its permissions',
  writes: 'For every change (writes need approval)',
  destructive: 'Only to delete or cancel',
};

interface PolicyForm {
  requireApproval: Policy['requireApproval'];
  approvalOverAmount: string;
  bookingsPerDay: string;
  cancellationsPerDay: string;
  spendPerDay: string;
}

export function PolicySection(props: { agent: Agent }) {
  const { agent } = props;
  const policy = useAgentPolicy(agent.id);
  const org = useActiveOrganisation();
  if (agent.status === 'disabled') return null;
  if (policy.isPending || org.isPending) return <Loading />;
  if (policy.isError) return <LoadError error={policy.error} />;
  // The organisation's currency, as its types' prices default to (organisations/currency.ts).
  const currency = org.active ? organisationCurrency(org.active) : 'USD';
  return <PolicyEditor agent={agent} policy={policy.data} currency={currency} />;
}

/** The form's fields as typed: amounts in major units, counts as text (empty: no limit). */
function formOf(policy: Policy, currency: string): PolicyForm {
  return {
    requireApproval: policy.requireApproval,
    approvalOverAmount: majorOf(policy.approvalOverAmount, currency),
    bookingsPerDay: policy.limits.bookingsPerDay == null ? '' : String(policy.limits.bookingsPerDay),
    cancellationsPerDay:
      policy.limits.cancellationsPerDay == null ? '' : String(policy.limits.cancellationsPerDay),
    spendPerDay: majorOf(policy.limits.spendPerDay, currency),
  };
}

/** The policy as PUT takes it. Text that is no number goes as it is: the API refuses it on its field. */
function bodyOf(form: PolicyForm, currency: string): PolicyBody {
  return {
    requireApproval: form.requireApproval,
    approvalOverAmount: minorOf(form.approvalOverAmount, currency),
    limits: {
      bookingsPerDay: countOf(form.bookingsPerDay),
      cancellationsPerDay: countOf(form.cancellationsPerDay),
      spendPerDay: minorOf(form.spendPerDay, currency),
    },
  } as PolicyBody;
}

const SHOWN_FIELDS = [
  'requireApproval',
  'approvalOverAmount',
  'limits.bookingsPerDay',
  'limits.cancellationsPerDay',
  'limits.spendPerDay',
];

type SetField = <K extends keyof PolicyForm>(key: K) => (value: PolicyForm[K]) => void;

/** The policy as typed, and saving it; `done` until a field changes or it is sent again. */
function usePolicyForm(agent: Agent, policy: Policy, currency: string) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<PolicyForm>(() => formOf(policy, currency));
  const [done, setDone] = useState(false);
  const set: SetField = (key) => (value) => {
    setDone(false);
    setForm((f) => ({ ...f, [key]: value }));
  };
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        authed.PUT('/api/agents/{id}/policy', {
          params: { path: { id: agent.id } },
          body: bodyOf(form, currency),
        }),
      ),
    onSuccess: (saved) => {
      setDone(true);
      queryClient.setQueryData(queryKeys.agentPolicy(agent.id), saved);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    save.mutate();
  };
  return { form, set, save, done, submit };
}

function PolicyEditor(props: { agent: Agent; policy: Policy; currency: string }) {
  const { currency } = props;
  const { form, set, save, done, submit } = usePolicyForm(props.agent, props.policy, currency);
  const errors = fieldErrors(save.error);
  return (
    <section aria-labelledby="policy-heading">
      <h2 id="policy-heading">Policy</h2>
      <p className="hint">
        Calls that wait for approval appear in <Link to="/app/approvals">Approvals</Link> for 24 hours. Empty
        limits mean no limit; limits count the last 24 hours.
      </p>
      <form noValidate onSubmit={submit}>
        <Select
          name="requireApproval"
          label="Ask me before it acts"
          value={form.requireApproval}
          error={errors.requireApproval}
          onChange={(v) => set('requireApproval')(v as Policy['requireApproval'])}
        >
          {(Object.keys(approvalModeWords) as Policy['requireApproval'][]).map((m) => (
            <option key={m} value={m}>
              {approvalModeWords[m]}
            </option>
          ))}
        </Select>
        <Field
          name="approvalOverAmount"
          label={`Also ask when a call costs more than (${currency})`}
          type="text"
          required={false}
          value={form.approvalOverAmount}
          error={errors.approvalOverAmount}
          hint="Whatever the choice above; empty: no amount threshold."
          onChange={set('approvalOverAmount')}
        />
        <DailyLimits form={form} set={set} errors={errors} currency={currency} />
        {save.isError ? <FormError error={save.error} shown={SHOWN_FIELDS} /> : null}
        <p role="status">{done ? 'Policy saved.' : ''}</p>
        <SubmitActions pending={save.isPending} label="Save policy" />
      </form>
    </section>
  );
}

function DailyLimits(props: {
  form: PolicyForm;
  set: SetField;
  errors: Record<string, string | undefined>;
  currency: string;
}) {
  const { form, set, errors, currency } = props;
  return (
    <fieldset>
      <legend>Daily limits</legend>
      <div className="grid-2">
        <Field
          name="limits.bookingsPerDay"
          label="Bookings and holds per day"
          type="text"
          required={false}
          value={form.bookingsPerDay}
          error={errors['limits.bookingsPerDay']}
          onChange={set('bookingsPerDay')}
        />
        <Field
          name="limits.cancellationsPerDay"
          label="Cancellations and releases per day"
          type="text"
          required={false}
          value={form.cancellationsPerDay}
          error={errors['limits.cancellationsPerDay']}
          onChange={set('cancellationsPerDay')}
        />
        <Field
          name="limits.spendPerDay"
          label={`Spending per day (${currency})`}
          type="text"
          required={false}
          value={form.spendPerDay}
          error={errors['limits.spendPerDay']}
          onChange={set('spendPerDay')}
        />
      </div>
    </fieldset>
  );
}
