// What the troubleshooter looks at: every resource of a type, or up to three chosen resources
// (of any types), and the day.
import type { Resource, ResourceType } from '../../api/types.js';
import { Field, LimitedChecks, Select } from '../ui.js';
import { MAX_RESOURCES, type Pick } from './pick.js';

export function PickFields(props: {
  pick: Pick;
  types: ResourceType[];
  resources: Resource[];
  onChange: (pick: Pick) => void;
}) {
  const { pick, types, resources, onChange } = props;
  return (
    <div className="troubleshoot-pick">
      <fieldset>
        <legend>Look at</legend>
        <LookChoice value="type" label="Every resource of a type" pick={pick} onChange={onChange} />
        <LookChoice
          value="resources"
          label={`Chosen resources (up to ${MAX_RESOURCES})`}
          pick={pick}
          onChange={onChange}
        />
      </fieldset>
      {pick.look === 'type' ? (
        <Select
          name="type"
          label="Type"
          value={String(pick.typeId ?? '')}
          onChange={(id) => onChange({ ...pick, typeId: Number(id) })}
        >
          {types.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </Select>
      ) : (
        <ResourceChoice pick={pick} resources={resources} onChange={onChange} />
      )}
      <Field
        name="day"
        label="Day"
        type="date"
        value={pick.day}
        onChange={(day) => onChange({ ...pick, day })}
      />
    </div>
  );
}

function LookChoice(props: {
  value: Pick['look'];
  label: string;
  pick: Pick;
  onChange: (pick: Pick) => void;
}) {
  const { value, label, pick, onChange } = props;
  return (
    <div className="field check">
      <input
        type="radio"
        id={`look-${value}`}
        name="look"
        checked={pick.look === value}
        onChange={() => onChange({ ...pick, look: value })}
      />
      <label htmlFor={`look-${value}`}>{label}</label>
    </div>
  );
}

/** The resources to look at side by side (lanes answer with their resource, so only resources). */
function ResourceChoice(props: { pick: Pick; resources: Resource[]; onChange: (pick: Pick) => void }) {
  const { pick, onChange } = props;
  return (
    <fieldset>
      <legend>Resources (up to {MAX_RESOURCES})</legend>
      <LimitedChecks
        prefix="resource"
        options={props.resources.filter((r) => r.parentResourceId === null)}
        chosen={pick.resourceIds}
        max={MAX_RESOURCES}
        onChange={(resourceIds) => onChange({ ...pick, resourceIds })}
      />
    </fieldset>
  );
}
