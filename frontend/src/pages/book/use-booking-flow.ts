// The booking page's state: the service and resource chosen, the time, the step shown and what
// each step handed on (a hold, a booking, a series preview, a waitlist entry).
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { BookedReservation, Catalogue } from '../../api/types.js';
import type { BookedTime } from '../../components/BookingDone.js';
import type { Repeat } from '../../components/DetailsForm.js';
import type { BookedSeries, PreviewOccurrence, SeriesBody } from '../../components/Series.js';
import type { ResourceChoiceValue } from '../../components/ServiceChoice.js';
import type { Target } from '../../components/SlotPicker.js';
import type { JoinedEntry } from '../../components/Waitlist.js';
import type { Answers, Values } from '../../lib/booking.js';
import { type BookableTime, visitorZone } from '../../lib/time.js';

export type Step = 'choose' | 'details' | 'review' | 'done' | 'series-review' | 'series-done' | 'waitlisted';

/** The type chosen; `?type=<id>`, the console's link to one type, opens with that type chosen. */
function useChosenType(catalogue: Catalogue) {
  const { organisation, resourceTypes } = catalogue;
  const [search] = useSearchParams();
  const [typeId, setTypeId] = useState<number | null>(() => {
    const linked = resourceTypes.find((t) => String(t.id) === search.get('type'));
    return linked?.id ?? (resourceTypes.length === 1 ? resourceTypes[0]!.id : null);
  });
  const type = resourceTypes.find((t) => t.id === typeId) ?? null;
  // After Branding's own title (a child's effect runs first): the chosen type names the tab.
  useEffect(() => {
    document.title = type ? `${type.name} · ${organisation.name}` : organisation.name;
  }, [type, organisation.name]);
  return { typeId, setTypeId, type };
}

/** What the details form holds, kept while the visitor steps back and forth. */
export function useBookingInputs() {
  const [values, setValues] = useState<Values>({});
  const [answers, setAnswers] = useState<Answers>({});
  const [repeat, setRepeat] = useState<Repeat>({ weekly: false, weeks: '4' });
  // A time asked for on the waitlist directly (it is taken, so no slot offers it).
  const [waitOnly, setWaitOnly] = useState(false);
  return { values, setValues, answers, setAnswers, repeat, setRepeat, waitOnly, setWaitOnly };
}

export type BookingInputs = ReturnType<typeof useBookingInputs>;

/** The step shown and what each step handed on to the next. */
export function useBookingSteps() {
  const [step, setStep] = useState<Step>('choose');
  const [held, setHeld] = useState<BookedReservation | null>(null);
  const [done, setDone] = useState<{ booked: BookedTime; manageUrl: string | null } | null>(null);
  const [preview, setPreview] = useState<{ body: SeriesBody; occurrences: PreviewOccurrence[] } | null>(null);
  const [series, setSeries] = useState<BookedSeries | null>(null);
  const [entry, setEntry] = useState<JoinedEntry | null>(null);
  return {
    step,
    setStep,
    held,
    setHeld,
    done,
    setDone,
    preview,
    setPreview,
    series,
    setSeries,
    entry,
    setEntry,
  };
}

export type BookingSteps = ReturnType<typeof useBookingSteps>;

/** The service, resource, zone and time chosen; choosing another service clears what depended on it. */
export function useBookingChoice(catalogue: Catalogue, inputs: BookingInputs) {
  const { typeId, setTypeId, type } = useChosenType(catalogue);
  const [zone, setZone] = useState(visitorZone);
  const typeResources = catalogue.resources.filter((r) => r.resourceTypeId === typeId);
  const [resourceChoice, setResourceChoice] = useState<ResourceChoiceValue | null>(null);
  const [time, setTime] = useState<BookableTime | null>(null);
  // A type's resource: the pool ("any") where the type books from it, else the first resource.
  const choice =
    resourceChoice ??
    (type && type.bookingMode !== 'SINGLE_RESOURCE' ? 'any' : (typeResources[0]?.id ?? null));
  const target: Target | null =
    type === null
      ? null
      : choice === 'any'
        ? { resourceTypeId: type.id }
        : choice
          ? { resourceId: choice }
          : null;
  const chooseType = (id: number) => {
    setTypeId(id);
    setResourceChoice(null);
    setTime(null);
    inputs.setAnswers({});
    inputs.setRepeat((r) => ({ ...r, weekly: false }));
  };
  const chooseResource = (v: ResourceChoiceValue) => {
    setResourceChoice(v);
    setTime(null);
  };
  return { type, typeResources, choice, target, chooseType, chooseResource, zone, setZone, time, setTime };
}

export type BookingChoice = ReturnType<typeof useBookingChoice>;
