#include "export/sessionexport.h"

#include "export/exportfile.h"
#include "export/reportwriter.h"
#include "store/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace {
QString shown(const QString &path)
{
    return QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath());
}
} // namespace

bool SessionExport::checkFileName(QString &name, QString &problem)
{
    if (name.trimmed().isEmpty() || name.contains(u'/') || name.contains(u'\\') ||
        name == QStringLiteral(".") || name == QStringLiteral("..")) {
        problem = QStringLiteral("the kernel's file name must be a name such as fast_silu.py, not '%1'; the "
                                 "folder is chosen separately")
                      .arg(name);
        return false;
    }
    if (!name.endsWith(QStringLiteral(".py"), Qt::CaseInsensitive))
        name += QStringLiteral(".py");
    return true;
}

SessionExport::Result SessionExport::run(SessionStore &store, const Request &request)
{
    Result r;
    if (request.folder.trimmed().isEmpty()) {
        r.error = QStringLiteral("no folder to export into was given");
        return r;
    }
    QString fileName = request.fileName;
    if (!fileName.isEmpty() && !checkFileName(fileName, r.error))
        return r;
    const auto session = store.findSession(request.sessionId);
    if (!session) {
        r.error = store.lastError();
        return r;
    }
    KernelExporter exporter(store);
    r.prepared = exporter.prepare(session->id, request.candidateId);
    if (!r.prepared) {
        r.error = exporter.lastError();
        return r;
    }
    if (fileName.isEmpty())
        fileName = KernelExporter::defaultFileName(*session);
    const QString stem = fileName.chopped(3);
    const QDir dir(request.folder);
    r.outputs.append({QStringLiteral("kernel"), dir.filePath(fileName), r.prepared->text.toUtf8()});
    if (request.reports) {
        ReportWriter report(store);
        if (!report.load(session->id)) {
            r.error = report.lastError();
            return r;
        }
        r.outputs.append(
            {QStringLiteral("csv"), dir.filePath(ReportWriter::csvFileName(stem)), report.csv()});
        r.outputs.append(
            {QStringLiteral("json"), dir.filePath(ReportWriter::jsonFileName(stem)), report.json()});
        r.outputs.append({QStringLiteral("report"), dir.filePath(ReportWriter::markdownFileName(stem)),
                          report.markdown()});
    }
    for (const Output &o : std::as_const(r.outputs))
        if (QFileInfo::exists(o.path))
            r.existing.append(shown(o.path));
    if (!r.existing.isEmpty() && !request.overwrite) {
        r.error = QStringLiteral("%1 %2; nothing was written")
                      .arg(r.existing.join(QStringLiteral(", ")), r.existing.size() == 1
                                                                      ? QStringLiteral("already exists")
                                                                      : QStringLiteral("already exist"));
        return r;
    }
    if (!ExportFile::ensureFolder(request.folder, r.error))
        return r;
    QStringList created;
    for (const Output &o : std::as_const(r.outputs)) {
        const bool isNew = !QFileInfo::exists(o.path);
        if (!ExportFile::write(o.path, o.bytes, request.overwrite, r.error)) {
            // Files this export created are taken back; files it replaced cannot be restored.
            for (const QString &p : std::as_const(created))
                QFile::remove(p);
            if (!created.isEmpty())
                r.error += QStringLiteral("; removed the files this export had written");
            return r;
        }
        if (isNew)
            created.append(o.path);
    }
    r.ok = true;
    return r;
}
