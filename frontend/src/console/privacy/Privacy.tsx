// The privacy centre of the signed-in person: what the service holds about them (the access
// report), a download of every personal record (the export), their consent decisions and
// history, and their data-subject requests (access, export, erasure) with cancel while pending.
import { useMutation } from '@tanstack/react-query';
import { unwrap } from '../../api/client.js';
import { errorText } from '../../api/errors.js';
import { authed } from '../../api/session.js';
import { Status } from '../account-ui.js';
import { AccessSection } from './AccessReport.js';
import { ConsentSection } from './Consents.js';
import { attachmentName, download } from './download.js';
import { RequestSection } from './Requests.js';

export default function Privacy() {
  return (
    <main className="page">
      <h1>Privacy</h1>
      <p className="hint">Your own data, whichever organisation you work in.</p>
      <ExportSection />
      <AccessSection />
      <ConsentSection />
      <RequestSection />
    </main>
  );
}

function ExportSection() {
  const exportData = useMutation({
    mutationFn: async () => {
      const call = authed.GET('/api/compliance/me/privacy/export', { parseAs: 'blob' });
      const blob = await unwrap(call);
      const { response } = await call;
      const name = attachmentName(
        response.headers.get('content-disposition'),
        `privacy-export-${new Date().toISOString().slice(0, 10)}.json`,
      );
      download(blob, name);
      return name;
    },
  });
  return (
    <section aria-labelledby="export-heading">
      <h2 id="export-heading">Download your data</h2>
      <p>Every personal record the service keeps about you, as one JSON file.</p>
      {exportData.isError ? (
        <p role="alert" className="error">
          {errorText(exportData.error)}
        </p>
      ) : null}
      <Status>
        {exportData.isPending
          ? 'Preparing your file…'
          : exportData.isSuccess
            ? `Downloaded ${exportData.data}.`
            : ''}
      </Status>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={exportData.isPending}
          onClick={() => exportData.mutate()}
        >
          Download my data
        </button>
      </div>
    </section>
  );
}
