#include "model/taskdraft.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>
#include <QTemporaryDir>

namespace {

const QStringList dtypes = {QStringLiteral("float32"), QStringLiteral("bfloat16"), QStringLiteral("float16"),
                            QStringLiteral("int32"),   QStringLiteral("int8"),     QStringLiteral("uint8"),
                            QStringLiteral("bool")};

bool parseShape(const QString &text, QList<qint64> &shape, QString &error)
{
    shape.clear();
    const QStringList dims = text.trimmed().split(u'x');
    for (const QString &d : dims) {
        bool ok = false;
        const qint64 n = d.trimmed().toLongLong(&ok);
        if (!ok || n < 1) {
            error =
                QStringLiteral("'%1' is not a shape: write its dimensions as whole numbers >= 1 joined by x, "
                               "e.g. 256x2048")
                    .arg(text);
            return false;
        }
        shape << n;
    }
    return true;
}

QJsonArray toArray(const QList<qint64> &shape)
{
    QJsonArray a;
    for (qint64 d : shape)
        a.append(d);
    return a;
}

bool writeFile(const QString &path, const QString &text, QString &error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

} // namespace

bool TaskDraft::parseInput(const QString &spec, Input &out, QString &error)
{
    static const QRegularExpression form(
        QStringLiteral("^\\s*([A-Za-z_]\\w*)\\s*=\\s*([^:]+?)\\s*(?::\\s*(\\S+))?\\s*$"));
    const QRegularExpressionMatch m = form.match(spec);
    if (!m.hasMatch()) {
        error = QStringLiteral("--input '%1': write NAME=SHAPE[:DTYPE], e.g. x=256x2048:float32").arg(spec);
        return false;
    }
    Input in;
    in.name = m.captured(1);
    if (!parseShape(m.captured(2), in.shape, error)) {
        error = QStringLiteral("--input %1: %2").arg(in.name, error);
        return false;
    }
    if (!m.captured(3).isEmpty()) {
        in.dtype = m.captured(3);
        if (!dtypes.contains(in.dtype)) {
            error = QStringLiteral("--input %1: unknown dtype '%2'; use one of %3")
                        .arg(in.name, in.dtype, dtypes.join(QStringLiteral(", ")));
            return false;
        }
    }
    out = in;
    return true;
}

bool TaskDraft::applySmall(const QString &spec, QString &error)
{
    static const QRegularExpression form(QStringLiteral("^\\s*([A-Za-z_]\\w*)\\s*=\\s*(.+?)\\s*$"));
    const QRegularExpressionMatch m = form.match(spec);
    if (!m.hasMatch()) {
        error = QStringLiteral("--small '%1': write NAME=SHAPE, e.g. x=64x512").arg(spec);
        return false;
    }
    for (Input &in : inputs)
        if (in.name == m.captured(1)) {
            if (!parseShape(m.captured(2), in.smallShape, error)) {
                error = QStringLiteral("--small %1: %2").arg(in.name, error);
                return false;
            }
            return true;
        }
    error = QStringLiteral("--small %1: there is no --input named %1").arg(m.captured(1));
    return false;
}

bool TaskDraft::validName(const QString &name, QString &error)
{
    static const QRegularExpression form(QStringLiteral("^[A-Za-z][A-Za-z0-9_-]{0,63}$"));
    if (form.match(name).hasMatch())
        return true;
    error = QStringLiteral(
                "'%1' cannot name a task: use letters, digits, _ and -, starting with a letter, at most "
                "64 characters")
                .arg(name);
    return false;
}

QString TaskDraft::shapeText(const QList<qint64> &shape)
{
    QStringList dims;
    for (qint64 d : shape)
        dims << QString::number(d);
    return dims.join(u'x');
}

bool TaskDraft::validate(QString &error) const
{
    if (!validName(name, error))
        return false;
    if (inputs.isEmpty()) {
        error = QStringLiteral(
            "the task has no inputs: give each kernel argument with --input NAME=SHAPE[:DTYPE]");
        return false;
    }
    QSet<QString> seen;
    for (const Input &in : inputs) {
        if (seen.contains(in.name)) {
            error = QStringLiteral("input '%1' is given twice").arg(in.name);
            return false;
        }
        seen.insert(in.name);
        if (in.shape.isEmpty()) {
            error = QStringLiteral("input '%1' has no shape").arg(in.name);
            return false;
        }
        if (!in.smallShape.isEmpty() && in.smallShape.size() != in.shape.size()) {
            error = QStringLiteral("input '%1': the small shape %2 has %3 dimensions, the shape %4 has %5")
                        .arg(in.name, shapeText(in.smallShape))
                        .arg(in.smallShape.size())
                        .arg(shapeText(in.shape))
                        .arg(in.shape.size());
            return false;
        }
    }
    if (relTol != 0 && !(relTol > 0 && relTol < 1)) {
        error = QStringLiteral("the tolerance %1 is not in (0, 1): it is the allowed L2 relative error")
                    .arg(relTol);
        return false;
    }
    if (kernelSource.trimmed().isEmpty()) {
        error = QStringLiteral("the kernel file is empty");
        return false;
    }
    if (referenceSource.trimmed().isEmpty()) {
        error = QStringLiteral("the reference is empty: it defines forward(*inputs) (numpy) or class Model "
                               "(PyTorch)");
        return false;
    }
    return true;
}

QJsonObject TaskDraft::taskJson() const
{
    QJsonObject o{{QStringLiteral("name"), name}};
    if (!description.isEmpty())
        o.insert(QStringLiteral("description"), description);
    if (!function.isEmpty())
        o.insert(QStringLiteral("function"), function);
    QJsonArray ins;
    for (const Input &in : inputs) {
        QJsonObject d{{QStringLiteral("name"), in.name},
                      {QStringLiteral("shape"), toArray(in.shape)},
                      {QStringLiteral("dtype"), in.dtype}};
        if (!in.smallShape.isEmpty() && in.smallShape != in.shape)
            d.insert(QStringLiteral("small_shape"), toArray(in.smallShape));
        ins.append(d);
    }
    o.insert(QStringLiteral("inputs"), ins);
    if (relTol != 0)
        o.insert(QStringLiteral("rel_tol"), relTol);
    return o;
}

QString TaskDraft::writeDraft(const QString &parentDir, QString &error) const
{
    if (!QDir().mkpath(parentDir)) {
        error = QStringLiteral("cannot create the tasks folder %1").arg(parentDir);
        return {};
    }
    QTemporaryDir draft(QDir(parentDir).filePath(QStringLiteral(".new-%1-XXXXXX").arg(name)));
    if (!draft.isValid()) {
        error = QStringLiteral("cannot create a folder in %1: %2").arg(parentDir, draft.errorString());
        return {};
    }
    const QDir dir(draft.path());
    QJsonObject task = taskJson();
    if (!kernelFile.isEmpty()) {
        // Relative to the task when both are in one project (the folder holding .accelopt/tasks), so the
        // repository can move; absolute otherwise.
        const QString kernel = QFileInfo(kernelFile).absoluteFilePath();
        const QString project = QDir::cleanPath(QDir(parentDir).absoluteFilePath(QStringLiteral("../..")));
        task.insert(QStringLiteral("kernel_file"),
                    kernel.startsWith(project + u'/')
                        ? QDir(QDir(parentDir).filePath(name)).relativeFilePath(kernel)
                        : kernel);
    }
    const QString json = QString::fromUtf8(QJsonDocument(task).toJson(QJsonDocument::Indented));
    if (!writeFile(dir.filePath(QStringLiteral("task.json")), json, error) ||
        !writeFile(dir.filePath(QStringLiteral("reference.py")), referenceSource, error) ||
        !writeFile(dir.filePath(QStringLiteral("baseline.py")), kernelSource, error))
        return {};
    draft.setAutoRemove(false);
    return draft.path();
}
