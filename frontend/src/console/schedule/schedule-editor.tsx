// Schedules at every level: the organisation's (Profile), a type's and a resource's (Catalogue).
// One form for all three: the mode, weekly hours or shifts, and dates with other hours; at a
// type or resource what it leaves unset follows the level above. Saving refreshes every query
// whose answer a schedule decides (the resource schedules, the booking page's times), so the
// previews show the saved schedule at once.
import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { unwrap } from '../../api/client.js';
import { fieldErrors } from '../../api/errors.js';
import { useActiveOrganisation, useResourceSchedule } from '../../api/hooks.js';
import { queryKeys } from '../../api/queryKeys.js';
import { authed } from '../../api/session.js';
import type { Organisation, Resource, ResourceType, SchedulePolicy } from '../../api/types.js';
import { formatDay } from '../../lib/time.js';
import { Status } from '../account-ui.js';
import { isStaff } from '../organisations/roles.js';
import { FormError, LoadError, Loading, Select, SubmitActions } from '../ui.js';
import {
  type Draft,
  draftOf,
  type Level,
  type Mode,
  policyOf,
  type Resolved,
  resolveLevels,
} from './schedule-draft.js';
import { DatesFieldset, HoursFieldset, ShiftsFieldset } from './schedule-fields.js';
import { SchedulePreview } from './schedule-preview.js';

const WORDS: Record<Level, { heading: string; hoursSet: string; follow: string; dates: string }> = {
  organisation: {
    heading: 'Weekly schedule',
    hoursSet: 'Set opening hours (otherwise open all day, every day)',
    follow: '',
    dates:
      "A date here replaces its weekday's hours for every type and resource, unless the type or resource lists the same date.",
  },
  resourceType: {
    heading: 'Hours of this type',
    hoursSet: "Set this type's own opening hours (otherwise the organisation's)",
    follow: 'As the organisation',
    dates:
      "A date here replaces its weekday's hours, and the organisation's entry for that date, for every resource of this type; a resource listing the same date keeps its own.",
  },
  resource: {
    heading: 'Hours of this resource',
    hoursSet: "Set this resource's own opening hours (otherwise its type's or the organisation's)",
    follow: 'As its type',
    dates:
      "A date here replaces its weekday's hours for this resource, and any entry its type or the organisation has for that date.",
  },
};

const modeWords: Record<Mode, string> = {
  continuous: 'Any time within the opening hours',
  shifts: 'Only the fixed shifts below',
};

/** Every query a schedule decides: the resolved schedules and the booking page's times. */
const SCHEDULE_DECIDES: QueryKey[] = [queryKeys.resourceSchedule(), queryKeys.availability()];

interface ScheduleFormProps {
  level: Level;
  policy: SchedulePolicy | null | undefined;
  zone: string;
  /** The mode the levels above give, followed while this level sets none. */
  inheritedMode: Mode;
  save: (policy: SchedulePolicy | null) => Promise<unknown>;
  /** The queries holding this level's record. */
  holds: QueryKey[];
}

/**
 * The draft, and saving it: `sent` maps each path of the body last sent to the form field it came
 * from, so a refusal lands on that field (`errors`); `refused` is the refusals by the API's paths.
 */
function useScheduleDraft(props: ScheduleFormProps) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(props.policy, props.level));
  const [sent, setSent] = useState<Map<string, string>>(new Map());
  const save = useMutation({
    mutationFn: (policy: SchedulePolicy) => props.save(Object.keys(policy).length > 0 ? policy : null),
    onSuccess: () =>
      Promise.all(
        [...props.holds, ...SCHEDULE_DECIDES].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      ),
  });
  const refused = fieldErrors(save.error);
  const errors: Record<string, string> = {};
  for (const [path, message] of Object.entries(refused)) {
    const field = sent.get(path);
    if (field && !errors[field]) errors[field] = message;
  }
  sayRepeatedDates(draft, errors);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { policy, fieldOf } = policyOf(draft);
    setSent(fieldOf);
    save.mutate(policy);
  };
  return { draft, setDraft, save, sent, refused, errors, submit };
}

export function ScheduleForm(props: ScheduleFormProps) {
  const { level, zone } = props;
  const words = WORDS[level];
  const { draft, setDraft, save, sent, refused, errors, submit } = useScheduleDraft(props);
  const mode = draft.mode || props.inheritedMode;
  // The organisation's sits in the Profile's section of it; a type's or resource's on its own page.
  const Heading = level === 'organisation' ? 'h3' : 'h2';
  return (
    <form noValidate aria-labelledby="schedule-heading" onSubmit={submit}>
      <Heading id="schedule-heading">{words.heading}</Heading>
      <p className="hint" id="schedule-times">
        Times are HH:mm, 24-hour, in {zone}; 24:00 ends at midnight.{' '}
        {level === 'organisation'
          ? 'Resource types and resources may set their own.'
          : 'What is not set here follows the level above.'}
      </p>
      <ModeSelect
        level={level}
        value={draft.mode}
        inheritedMode={props.inheritedMode}
        error={refused['schedulePolicy.availabilityMode']}
        onChange={(next) => setDraft((d) => ({ ...d, mode: next }))}
      />
      {mode === 'continuous' ? (
        <HoursFieldset draft={draft} setDraft={setDraft} errors={errors} setLabel={words.hoursSet} />
      ) : (
        <ShiftsFieldset draft={draft} setDraft={setDraft} errors={errors} />
      )}
      <DatesFieldset
        draft={draft}
        setDraft={setDraft}
        errors={errors}
        hint={`${words.dates}${mode === 'shifts' ? ' A closed date offers no shifts; special hours keep the shifts inside them.' : ''}`}
      />
      {save.isError ? <FormError error={save.error} shown={[...sent.keys()]} /> : null}
      <Status>{save.isSuccess && !save.isPending ? 'Schedule saved.' : ''}</Status>
      <SubmitActions pending={save.isPending} label="Save schedule" />
    </form>
  );
}

/** How times are offered: this level's mode, or (below the organisation) the one above. */
function ModeSelect(props: {
  level: Level;
  value: Mode | '';
  inheritedMode: Mode;
  error: string | undefined;
  onChange: (mode: Mode | '') => void;
}) {
  const { level } = props;
  return (
    <Select
      name="availabilityMode"
      label="How times are offered"
      value={props.value}
      error={props.error}
      onChange={(next) => props.onChange(next as Mode | '')}
    >
      {level === 'organisation' ? null : (
        <option value="">
          {WORDS[level].follow} ({modeWords[props.inheritedMode].toLowerCase()})
        </option>
      )}
      <option value="continuous">{modeWords.continuous}</option>
      <option value="shifts">{modeWords.shifts}</option>
    </Select>
  );
}

/** A type's schedule (staff edit it) and what it offers on the coming days. */
export function TypeSchedule(props: { org: Organisation; type: ResourceType }) {
  const { org, type } = props;
  const orgPolicy = org.schedulePolicy as SchedulePolicy | undefined;
  const above = resolveLevels([['organisation', orgPolicy]]);
  const resolved = resolveLevels([
    ['organisation', orgPolicy],
    ['resourceType', type.schedulePolicy as SchedulePolicy | null],
  ]);
  return (
    <section aria-labelledby="schedule-heading">
      {isStaff(org.role) ? (
        <ScheduleForm
          level="resourceType"
          policy={type.schedulePolicy as SchedulePolicy | null}
          zone={org.timezone}
          inheritedMode={above.availabilityMode}
          holds={[queryKeys.resourceTypes()]}
          save={(policy) =>
            unwrap(
              authed.PATCH('/api/resource-types/{id}', {
                params: { path: { id: type.id } },
                body: { schedulePolicy: policy },
              }),
            )
          }
        />
      ) : (
        <h2 id="schedule-heading">{WORDS.resourceType.heading}</h2>
      )}
      <SchedulePreview
        schedule={resolved}
        zone={org.timezone}
        title="The coming days for this type"
        id="type-preview"
        level={3}
      />
    </section>
  );
}

/** A resource's schedule (staff edit it) and, as the service resolves it, the coming days. */
export function ResourceHours(props: { resource: Resource; types: ResourceType[] }) {
  const org = useActiveOrganisation().active;
  if (!org) return null;
  return <ResourceHoursOf org={org} {...props} />;
}

function ResourceHoursOf(props: { org: Organisation; resource: Resource; types: ResourceType[] }) {
  const { org, resource } = props;
  const type = props.types.find((t) => t.id === resource.resourceTypeId);
  const above = resolveLevels([
    ['organisation', org.schedulePolicy as SchedulePolicy | undefined],
    ['resourceType', type?.schedulePolicy as SchedulePolicy | null | undefined],
  ]);
  const schedule = useResourceSchedule(resource.id);
  return (
    <section aria-labelledby="schedule-heading">
      {isStaff(org.role) ? (
        <ScheduleForm
          level="resource"
          policy={resource.schedulePolicy as SchedulePolicy | null}
          zone={org.timezone}
          inheritedMode={above.availabilityMode}
          holds={[queryKeys.resources()]}
          save={(policy) =>
            unwrap(
              authed.PATCH('/api/resources/{id}', {
                params: { path: { id: resource.id } },
                body: { schedulePolicy: policy },
              }),
            )
          }
        />
      ) : (
        <h2 id="schedule-heading">{WORDS.resource.heading}</h2>
      )}
      {schedule.isPending ? <Loading /> : null}
      {schedule.isError ? <LoadError error={schedule.error} /> : null}
      {schedule.data ? (
        <SchedulePreview
          schedule={schedule.data as Resolved}
          zone={org.timezone}
          title="The coming days for this resource"
          id="resource-preview"
          level={3}
        />
      ) : null}
    </section>
  );
}

/**
 * A date the form lists twice is refused on its second row as the service refuses it; the
 * general words ("not accepted") say less than the form knows, so that row names its date.
 */
function sayRepeatedDates(draft: Draft, errors: Record<string, string>) {
  const seen = new Set<string>();
  for (const row of draft.overrides) {
    const field = `override.${row.key}.date`;
    if (row.date && seen.has(row.date) && errors[field])
      errors[field] = `${formatDay(row.date)} is listed more than once: keep one of them.`;
    seen.add(row.date);
  }
}
