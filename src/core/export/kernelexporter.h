#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/sessionrecord.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

class SessionStore;

// Puts a session's kernel into the user's own project (the last step of the README's user guide): a .py file
// whose first lines are a provenance header in Python comments (what task and hardware it was measured on,
// how fast it was, where it came from) followed by the kernel source exactly as the session produced it.
//
// Export is two steps so a caller writing several files (the CLI's kernel plus reports) can refuse before
// writing any: prepare() gathers and checks everything and builds the file's text; write() puts it on disk.
class KernelExporter
{
public:
    // The lines that bracket our header. Re-exporting a kernel whose source already starts with them (a user
    // optimized an exported file again) replaces that header instead of stacking a second one.
    static const QString headerBegin;
    static const QString headerEnd;

    struct Prepared
    {
        SessionRecord session;
        Candidate candidate;
        Evaluation evaluation;
        std::optional<double> baselineLatencyMs; // of the session's baseline, when it ran correctly
        std::optional<double> speedup;           // baseline latency / this latency
        std::optional<Evaluation> remeasured;    // its run on fresh seeds at the small size (SessionStore)
        QList<Candidate> lineage;                // from the baseline down to the candidate
        QHash<QString, QString> planTitles;      // plan id -> title, for the lineage's steps
        QDateTime exportedAt;
        QString text; // the whole file: header, then the kernel source
    };

    explicit KernelExporter(SessionStore &store);

    // The kernel of `sessionId`: its best correct candidate, or `candidateId` (a full id or a prefix unique
    // in the session) when given. With an empty session id the candidate's own session is used.
    // `exportedAt` defaults to now; tests pin it.
    // One line on whether the kernel was re-measured before it was reported, for the header and the CLI.
    static QString remeasureText(const Prepared &p);
    std::optional<Prepared> prepare(const QString &sessionId, const QString &candidateId = {},
                                    const QDateTime &exportedAt = {});

    // Writes the prepared file to `folder`/`fileName` (default: defaultFileName()), creating the folder when
    // missing. Refuses an existing file unless `overwrite`. Returns the path written, or empty with the
    // reason in lastError().
    QString write(const Prepared &prepared, const QString &folder, const QString &fileName = {},
                  bool overwrite = false);

    QString lastError() const { return m_error; }

    // "<task>_<first 8 of the session id>.py", reduced to characters that are safe in a file name and make
    // an importable Python module name.
    static QString defaultFileName(const SessionRecord &session);
    // `source` without a header that an earlier export put at its top; anything else is returned unchanged.
    static QString stripHeader(const QString &source);
    // The header's comment lines for a prepared export (without the kernel source).
    static QString header(const Prepared &prepared);

private:
    std::optional<Prepared> fail(const QString &error);
    std::optional<Candidate> resolveCandidate(const QString &sessionId, const QString &candidateId);

    SessionStore &m_store;
    QString m_error;
};
