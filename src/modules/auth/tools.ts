import { z } from 'zod';
import { defineTool } from '../../mcp/types.js';
import { user } from './schemas.js';
import type { AuthService } from './service.js';

/** MCP tools of the account: who the agent acts for (never a credential). */
export const authTools = [
  defineTool({
    actionKey: 'user.profile.read',
    title: 'Read user profile',
    description:
      'The user you act for: name, email, plan and active organisation (the one resource and reservation tools work in).',
    catalogue: {
      description: "The owner's name, email, plan and active organisation.",
      risk: 'read',
      scopeKinds: [],
    },
    input: z.strictObject({}),
    output: user,
    run: (auth: AuthService, actor) => auth.me(actor.userId),
  }),
];
