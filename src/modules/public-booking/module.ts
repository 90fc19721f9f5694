import { defineModule } from '../../module.js';
import { publicBookingRoutes } from './routes.js';
import { createPublicBookingService, type PublicBookingService } from './service.js';

declare module '../../module.js' {
  interface Services {
    publicBooking: PublicBookingService;
  }
}

export const publicBookingModule = defineModule({
  name: 'publicBooking',
  tables: [],
  service: (
    deps,
    { availability, reservations, resourceTypes, resources, organisations, waitlist, payments },
  ) =>
    createPublicBookingService({
      ...deps,
      availability,
      organisations,
      reservations,
      resourceTypes,
      resources,
      waitlist,
      payments,
    }),
  routes: [{ prefix: '/api/public', plugin: publicBookingRoutes }],
});
