#include "model/datasetlayout.h"

#include "common/regularfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace {

constexpr qint64 maxSummaryBytes = 16 * 1024 * 1024;

// summary.json's text, or why it was not read (a FIFO would block the reader and /dev/zero never ends). The
// runner skips such a file the same way and says so in the eval's warnings (dataset.py, read_summary).
QByteArray summaryText(const QString &root, QString *why)
{
    const QString path = QDir(root).filePath(QStringLiteral("summary.json"));
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        return {};
    QString problem;
    if (RegularFile::isSpecial(path) || !info.isFile())
        problem = info.exists() ? RegularFile::refusal(path) : QStringLiteral("%1 is a broken link").arg(path);
    else if (info.size() > maxSummaryBytes)
        problem = QStringLiteral("%1 is %2 bytes, more than a summary's 16 MiB").arg(path).arg(info.size());
    QFile f(path);
    if (problem.isEmpty() && !f.open(QIODevice::ReadOnly))
        problem = QStringLiteral("%1 cannot be read: %2").arg(path, f.errorString());
    if (!problem.isEmpty()) {
        if (why)
            *why = problem;
        return {};
    }
    return f.readAll();
}

// problem -> entry, from the dict form summary.json has (the runner also takes a list of entries).
QList<std::pair<QString, QJsonObject>> entries(const QString &root, QString *why = nullptr)
{
    QList<std::pair<QString, QJsonObject>> out;
    const QByteArray text = summaryText(root, why);
    if (text.isEmpty())
        return out;
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parse);
    if (parse.error != QJsonParseError::NoError) {
        if (why)
            *why = QStringLiteral("%1 is not valid JSON (%2 at byte %3)")
                       .arg(QDir(root).filePath(QStringLiteral("summary.json")), parse.errorString())
                       .arg(parse.offset);
        return out;
    }
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

// A file stem up to its first parameter, as the runner names problems ("silu_M4096_N7168_0" -> "silu"); empty
// when the stem has none.
QString upToFirstParameter(const QString &stem)
{
    static const QRegularExpression firstParameter(QStringLiteral("_numpy|_[A-Z]"));
    const qsizetype cut = stem.indexOf(firstParameter);
    return cut > 0 ? stem.left(cut) : QString();
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
    const QString stem = QFileInfo(kernelFile).completeBaseName();
    const auto hasReference = [&root](const QString &name) {
        const QDir refs(QDir(root).filePath(QStringLiteral("reference")));
        return !refs.entryList({name + QStringLiteral("_*.py"), name + QStringLiteral(".py")}, QDir::Files)
                    .isEmpty();
    };
    // The name up to its first parameter, as the runner lists problems ("silu_M4096_N7168_0" -> "silu") ...
    if (const QString name = upToFirstParameter(stem); !name.isEmpty() && hasReference(name))
        return name;
    // ... else the longest prefix with a reference, for other namings ("matmul_add_rmsnorm_nki_0").
    const QStringList parts = stem.split(u'_');
    for (qsizetype n = parts.size() - 1; n >= 1; --n)
        if (const QString name = parts.mid(0, n).join(u'_'); hasReference(name))
            return name;
    return {};
}

QStringList DatasetLayout::problems(const QString &root, QString *skipped)
{
    QString why;
    QStringList names;
    for (const auto &[name, entry] : entries(root, &why))
        names.append(name);
    if (!why.isEmpty() && skipped)
        *skipped = QStringLiteral("%1; problems are named from reference/ and kernels/ instead").arg(why);
    if (names.isEmpty()) {
        // As the runner lists them: a reference's name up to its first parameter ("silu_M4096_numpy_0" -> "silu").
        const QDir refs(QDir(root).filePath(QStringLiteral("reference")));
        for (const QString &file : refs.entryList({QStringLiteral("*.py")}, QDir::Files, QDir::Name)) {
            const QString stem = QFileInfo(file).completeBaseName();
            const QString name = upToFirstParameter(stem);
            names.append(name.isEmpty() ? stem : name);
        }
    }
    names.removeDuplicates();
    names.sort();
    return names;
}
