#pragma once

#include "export/kernelexporter.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

class SessionStore;

// One export as both front ends offer it (`accelopt export` and File > Export Best Kernel…): the kernel with
// its provenance header and, unless left out, the session's candidates as CSV and JSON and a Markdown report,
// all beside each other in one folder. All or nothing: every target is looked at before the first is
// written, an existing file is replaced only when the caller says so, and the files a failed export had
// already created are taken back.
class SessionExport
{
public:
    struct Request
    {
        QString sessionId;   // a unique prefix is enough
        QString candidateId; // empty: the session's best
        QString folder;
        QString fileName; // empty: KernelExporter::defaultFileName; ".py" is added when missing
        bool reports = true;
        bool overwrite = false;
    };
    struct Output
    {
        QString label; // "kernel", "csv", "json", "report"
        QString path;
        QByteArray bytes;
    };
    struct Result
    {
        bool ok = false;
        QString error;
        QStringList existing; // when refused because these files exist (and overwrite was not given)
        QList<Output> outputs;
        std::optional<KernelExporter::Prepared> prepared;
    };

    // A name for the file inside the folder, never a path: "../x.py" would quietly write elsewhere. Adds
    // ".py" when missing; false with the problem in words.
    static bool checkFileName(QString &name, QString &problem);
    static Result run(SessionStore &store, const Request &request);
};
