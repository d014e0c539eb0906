#include "model/datasetlayout.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace {

constexpr qint64 maxSummaryBytes = 16 * 1024 * 1024;

// problem -> entry, from the dict form summary.json has (the runner also takes a list of entries).
QList<std::pair<QString, QJsonObject>> entries(const QString &root)
{
    QList<std::pair<QString, QJsonObject>> out;
    QFile f(QDir(root).filePath(QStringLiteral("summary.json")));
    if (f.size() > maxSummaryBytes || !f.open(QIODevice::ReadOnly))
        return out;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    if (doc.isObject()) {
        const QJsonObject top = doc.object();
        for (auto it = top.begin(); it != top.end(); ++it)
            out.append({it.key(), it.value().toObject()});
    } else {
        for (const QJsonValue &v : doc.array()) {
            const QJsonObject e = v.toObject();
            const QString name =
                e.value(QStringLiteral("problem")).toString(e.value(QStringLiteral("name")).toString());
            if (!name.isEmpty())
                out.append({name, e});
        }
    }
    return out;
}

// The implementations ({task, kernel}) of an entry's first case.
QJsonArray firstImpls(const QJsonObject &entry)
{
    const QJsonValue cases = entry.value(QStringLiteral("cases"));
    QJsonObject first;
    if (cases.isObject() && !cases.toObject().isEmpty())
        first = cases.toObject().begin().value().toObject();
    else if (cases.isArray() && !cases.toArray().isEmpty())
        first = cases.toArray().first().toObject();
    for (const QString &key : {QStringLiteral("impls"), QStringLiteral("implementations")})
        if (first.value(key).isArray())
            return first.value(key).toArray();
    return {};
}

QString fileIn(const QString &root, const QString &sub, const QString &path)
{
    if (path.isEmpty())
        return {};
    const QString inSub = QDir(root).filePath(sub + u'/' + QFileInfo(path).fileName());
    return QFileInfo(inSub).isFile() ? inSub : QString();
}

QString firstMatch(const QString &dir, const QString &pattern)
{
    const QStringList found = QDir(dir).entryList({pattern}, QDir::Files, QDir::Name);
    return found.isEmpty() ? QString() : QDir(dir).filePath(found.first());
}

} // namespace

DatasetLayout::Files DatasetLayout::find(const QString &root, const QString &problem)
{
    Files files;
    for (const auto &[name, entry] : entries(root)) {
        if (name != problem)
            continue;
        const QJsonArray impls = firstImpls(entry);
        if (!impls.isEmpty()) {
            const QJsonObject im = impls.first().toObject();
            files.reference = fileIn(
                root, QStringLiteral("reference"),
                im.value(QStringLiteral("task")).toString(im.value(QStringLiteral("reference")).toString()));
            files.kernel =
                fileIn(root, QStringLiteral("kernels"), im.value(QStringLiteral("kernel")).toString());
        }
    }
    const QString refs = QDir(root).filePath(QStringLiteral("reference"));
    const QString kernels = QDir(root).filePath(QStringLiteral("kernels"));
    if (files.reference.isEmpty())
        files.reference = firstMatch(refs, problem + QStringLiteral("_*.py"));
    if (files.reference.isEmpty())
        files.reference = firstMatch(refs, problem + QStringLiteral(".py"));
    if (files.kernel.isEmpty())
        files.kernel = firstMatch(kernels, problem + QStringLiteral("_*_0.py"));
    if (files.kernel.isEmpty())
        files.kernel = firstMatch(kernels, problem + QStringLiteral("*.py"));
    return files;
}

QString DatasetLayout::problemOfKernel(const QString &root, const QString &kernelFile)
{
    const QString base = QFileInfo(kernelFile).fileName();
    for (const auto &[name, entry] : entries(root)) {
        const QJsonValue cases = entry.value(QStringLiteral("cases"));
        const QJsonArray all = cases.isArray() ? cases.toArray() : QJsonArray();
        QList<QJsonObject> list;
        if (cases.isObject())
            for (const QJsonValue &c : cases.toObject())
                list << c.toObject();
        for (const QJsonValue &c : all)
            list << c.toObject();
        for (const QJsonObject &c : list)
            for (const QString &key : {QStringLiteral("impls"), QStringLiteral("implementations")})
                for (const QJsonValue &im : c.value(key).toArray())
                    if (QFileInfo(im.toObject().value(QStringLiteral("kernel")).toString()).fileName() == base)
                        return name;
    }
    static const QRegularExpression firstParameter(QStringLiteral("_numpy|_[A-Z]"));
    const QString stem = QFileInfo(kernelFile).completeBaseName();
    const auto hasReference = [&root](const QString &name) {
        const QDir refs(QDir(root).filePath(QStringLiteral("reference")));
        return !refs.entryList({name + QStringLiteral("_*.py"), name + QStringLiteral(".py")}, QDir::Files)
                    .isEmpty();
    };
    // The name up to its first parameter, as the runner lists problems ("silu_M4096_N7168_0" -> "silu") ...
    if (const qsizetype cut = stem.indexOf(firstParameter); cut > 0 && hasReference(stem.left(cut)))
        return stem.left(cut);
    // ... else the longest prefix with a reference, for other namings ("matmul_add_rmsnorm_nki_0").
    const QStringList parts = stem.split(u'_');
    for (qsizetype n = parts.size() - 1; n >= 1; --n)
        if (const QString name = parts.mid(0, n).join(u'_'); hasReference(name))
            return name;
    return {};
}
