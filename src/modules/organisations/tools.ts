import { z } from 'zod';
import { entityId } from '../../http/schemas.js';
import { defineTool } from '../../mcp/types.js';
import { memberListEntry, memberOrganisation } from './schemas.js';
import type { OrganisationsService } from './service.js';

const organisationRef = { organisationId: entityId };

/** MCP tools of organisations: read-only context of the owner's organisations, with the owner's role. */
export const organisationTools = [
  defineTool({
    actionKey: 'organisation.list',
    title: 'List organisations',
    description:
      'The active organisations you belong to, each with your role and whether it is your active organisation (the one resource types, resources and reservations work in).',
    catalogue: {
      description: "The owner's organisations with role and active state.",
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject({}),
    output: z.object({ organisations: z.array(memberOrganisation) }),
    run: async (organisations: OrganisationsService, actor) => ({
      organisations: await organisations.list(actor),
    }),
  }),
  defineTool({
    actionKey: 'organisation.get',
    title: 'Read organisation',
    description:
      'One organisation you belong to, with its profile, time zone, default currency and schedule policy (any member).',
    catalogue: {
      description: 'One organisation of the owner, with its schedule policy.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(organisationRef),
    output: memberOrganisation,
    run: (organisations: OrganisationsService, actor, { organisationId }) =>
      organisations.get(actor, organisationId),
  }),
  defineTool({
    actionKey: 'organisation.members.list',
    title: 'List organisation members',
    description:
      'Members of one organisation you belong to, with their roles (status "active"), then its invitations not yet accepted (status "invited", no name or email; expiresAt tells a lapsed one) (any member).',
    catalogue: {
      description: 'Members and roles of one organisation of the owner.',
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject(organisationRef),
    output: z.object({ members: z.array(memberListEntry) }),
    run: async (organisations: OrganisationsService, actor, { organisationId }) => ({
      members: await organisations.listMembers(actor, organisationId),
    }),
  }),
];
