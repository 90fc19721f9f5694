import { z } from 'zod';

export const feedUrl = z.object({
  url: z
    .string()
    .describe('The secret subscription URL (`/api/feeds/<token>.ics`): shown once; a new one replaces it'),
});
export type FeedUrl = z.infer<typeof feedUrl>;

export const feedFileParam = z.object({
  file: z.string().min(1).max(200).describe('`<token>.ics`'),
});
