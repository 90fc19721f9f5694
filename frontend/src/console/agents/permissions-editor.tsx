// What an agent may do: a built-in preset as it is, or actions chosen one by one (a preset can
// fill them in) with one calendar scope and one people-group scope applied to every chosen
// action that takes that kind of scope. Used by the new-agent form and the agent's detail.
import type { Catalog, CatalogAction, PermissionGroup } from '../../api/types.js';
import { areaOf } from './agent-values.js';
import { areaWords, grantableKeys, type PermissionChoice } from './permissions.js';

const riskWords: Record<CatalogAction['risk'], string> = {
  read: 'reads',
  write: 'changes',
  destructive: 'deletes or cancels',
};

type SetChoice = (patch: Partial<PermissionChoice>) => void;

export function PermissionsEditor(props: {
  value: PermissionChoice;
  onChange: (next: PermissionChoice) => void;
  catalog: Catalog;
  groups: PermissionGroup[];
}) {
  const { value, onChange, catalog, groups } = props;
  const set = (patch: Partial<PermissionChoice>) => onChange({ ...value, ...patch });
  return (
    <div className="permissions">
      <fieldset className="choices">
        <legend>Permissions</legend>
        <label className="choice">
          <input
            type="radio"
            name="perm-mode"
            checked={value.mode === 'preset'}
            onChange={() => set({ mode: 'preset' })}
          />
          <span>
            A preset, as it is
            <span className="choice-description">Its actions, within your own rights.</span>
          </span>
        </label>
        <label className="choice">
          <input
            type="radio"
            name="perm-mode"
            checked={value.mode === 'actions'}
            onChange={() => set({ mode: 'actions' })}
          />
          <span>
            Actions I choose
            <span className="choice-description">
              Start from a preset if you like, and narrow them to some calendars or groups.
            </span>
          </span>
        </label>
      </fieldset>

      {value.mode === 'preset' ? (
        <PresetChoice value={value} set={set} groups={groups} />
      ) : (
        <ActionsChoice value={value} set={set} catalog={catalog} groups={groups} />
      )}
    </div>
  );
}

function PresetChoice({
  value,
  set,
  groups,
}: {
  value: PermissionChoice;
  set: SetChoice;
  groups: PermissionGroup[];
}) {
  return (
    <fieldset className="choices">
      <legend>Preset</legend>
      {groups.map((g) => (
        <label className="choice" key={g.id}>
          <input
            type="radio"
            name="perm-preset"
            value={g.id}
            disabled={!g.canAssign}
            checked={value.preset === g.id}
            onChange={() => set({ preset: g.id })}
          />
          <span>
            {g.label}
            {g.canAssign ? '' : ' (global admins only)'}
            <span className="choice-description">
              {g.description} {g.highlights.join('. ')}.
            </span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** Actions chosen one by one (a preset can fill them in), then the scopes the chosen ones take. */
function ActionsChoice(props: {
  value: PermissionChoice;
  set: SetChoice;
  catalog: Catalog;
  groups: PermissionGroup[];
}) {
  const { value, set, catalog, groups } = props;
  const listed = catalog.actions.filter((a) => !a.alwaysAllowed);
  const chosen = new Set(value.actions);
  const chosenActions = listed.filter((a) => chosen.has(a.key));
  const always = catalog.actions.filter((a) => a.alwaysAllowed).map((a) => a.title);
  return (
    <>
      <div className="fill-from">
        <div className="field">
          <label htmlFor="f-fill-preset">Fill in the actions of a preset</label>
          <select id="f-fill-preset" value={value.preset} onChange={(e) => set({ preset: e.target.value })}>
            {groups
              .filter((g) => g.canAssign)
              .map((g) => (
                <option key={g.id} value={g.id}>
                  {g.label}
                </option>
              ))}
          </select>
        </div>
        <button
          type="button"
          className="secondary"
          onClick={() => set({ actions: [...(groups.find((g) => g.id === value.preset)?.actionKeys ?? [])] })}
        >
          Use its actions
        </button>
        <button type="button" className="secondary" onClick={() => set({ actions: [] })}>
          Clear all
        </button>
      </div>
      <p className="hint" role="status">
        {chosenActions.length} {chosenActions.length === 1 ? 'action' : 'actions'} chosen. Always allowed:{' '}
        {always.join(', ')}.
      </p>
      <ActionAreas value={value} set={set} listed={listed} groups={groups} />
      <Scopes value={value} set={set} catalog={catalog} chosenActions={chosenActions} />
    </>
  );
}

/** Every action that can be chosen, by area, with what it does and who may grant it. */
function ActionAreas(props: {
  value: PermissionChoice;
  set: SetChoice;
  listed: CatalogAction[];
  groups: PermissionGroup[];
}) {
  const { value, set, listed, groups } = props;
  const grantable = grantableKeys(groups);
  const areas = [...new Set(listed.map((a) => areaOf(a.key)))];
  const chosen = new Set(value.actions);
  return (
    <>
      {areas.map((area) => (
        <fieldset key={area} className="action-area">
          <legend>{areaWords(area)}</legend>
          <div className="event-grid">
            {listed
              .filter((a) => areaOf(a.key) === area)
              .map((a) => (
                <label key={a.key} className="event-choice">
                  <input
                    type="checkbox"
                    name="perm-action"
                    value={a.key}
                    disabled={!grantable.has(a.key) && !chosen.has(a.key)}
                    checked={chosen.has(a.key)}
                    onChange={(e) =>
                      set({
                        actions: e.target.checked
                          ? [...value.actions, a.key]
                          : value.actions.filter((k) => k !== a.key),
                      })
                    }
                  />{' '}
                  {a.title} ({riskWords[a.risk]}
                  {grantable.has(a.key) ? '' : ', global admins only'})
                </label>
              ))}
          </div>
        </fieldset>
      ))}
    </>
  );
}

/** One calendar scope and one people-group scope, for the chosen actions that take them. */
function Scopes(props: {
  value: PermissionChoice;
  set: SetChoice;
  catalog: Catalog;
  chosenActions: CatalogAction[];
}) {
  const { value, set, catalog, chosenActions } = props;
  const needsCalendars = chosenActions.some((a) => a.scopeKinds.includes('calendar'));
  const needsGroups = chosenActions.some((a) => a.scopeKinds.includes('userGroup'));
  const { calendars, groups: peopleGroups } = catalog.scopingResources;
  const toggle = (list: number[], id: number, on: boolean) =>
    on ? [...list.filter((x) => x !== id), id] : list.filter((x) => x !== id);
  return (
    <>
      {needsCalendars ? (
        <ScopeChoice
          kind="calendars"
          legend="Calendars it may reach"
          allWords="All your calendars"
          items={calendars}
          mode={value.calendars}
          ids={value.calendarIds}
          onMode={(calendars) => set({ calendars })}
          onToggle={(id, on) => set({ calendarIds: toggle(value.calendarIds, id, on) })}
        />
      ) : null}
      {needsGroups && peopleGroups.length > 0 ? (
        <ScopeChoice
          kind="groups"
          legend="People groups it may reach"
          allWords="All your groups"
          items={peopleGroups}
          mode={value.groups}
          ids={value.groupIds}
          onMode={(groups) => set({ groups })}
          onToggle={(id, on) => set({ groupIds: toggle(value.groupIds, id, on) })}
        />
      ) : null}
    </>
  );
}

function ScopeChoice(props: {
  kind: string;
  legend: string;
  allWords: string;
  items: { id: number; name: string }[];
  mode: 'all' | 'some';
  ids: number[];
  onMode: (mode: 'all' | 'some') => void;
  onToggle: (id: number, on: boolean) => void;
}) {
  const { kind, legend, allWords, items, mode, ids, onMode, onToggle } = props;
  return (
    <fieldset className="scope">
      <legend>{legend}</legend>
      <div className="field check">
        <input
          type="radio"
          id={`f-scope-${kind}-all`}
          name={`scope-${kind}`}
          checked={mode === 'all'}
          onChange={() => onMode('all')}
        />
        <label htmlFor={`f-scope-${kind}-all`}>{allWords}</label>
      </div>
      <div className="field check">
        <input
          type="radio"
          id={`f-scope-${kind}-some`}
          name={`scope-${kind}`}
          checked={mode === 'some'}
          onChange={() => onMode('some')}
        />
        <label htmlFor={`f-scope-${kind}-some`}>Only the ones I tick</label>
      </div>
      {mode === 'some' ? (
        <fieldset className="scope-items">
          <legend className="visually-hidden">{legend}: only these</legend>
          {items.map((item) => (
            <div className="field check" key={item.id}>
              <input
                type="checkbox"
                id={`f-scope-${kind}-${item.id}`}
                checked={ids.includes(item.id)}
                onChange={(e) => onToggle(item.id, e.target.checked)}
              />
              <label htmlFor={`f-scope-${kind}-${item.id}`}>{item.name}</label>
            </div>
          ))}
          {ids.length === 0 ? <p className="hint">None ticked: it reaches none of them.</p> : null}
        </fieldset>
      ) : null}
    </fieldset>
  );
}
