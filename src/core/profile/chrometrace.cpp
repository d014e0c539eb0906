#include "profile/chrometrace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace {
// Built as text: a QJsonDocument of 100,000 objects costs several times the memory and time of the text.
void appendString(QByteArray &out, const QString &s)
{
    out += QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
}

void appendNumber(QByteArray &out, double v)
{
    out += QByteArray::number(v, 'f', 4);
}

QString unitLabel(const QString &unit)
{
    if (unit.startsWith(QLatin1StringView("dma")))
        return QStringLiteral("DMA queue %1").arg(unit.mid(3));
    const int engine = EvalProfile::Timeline::engineOfUnit(unit);
    return engine >= 0 ? EvalProfile::engineLabel(engine) : unit;
}
} // namespace

QByteArray ChromeTrace::toJson(const EvalProfile::Timeline &t, const QString &kernelName)
{
    QByteArray out;
    out.reserve(160 * t.count() + 1024);
    out += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":";
    appendString(out, kernelName);
    out += ",\"truncated\":";
    out += t.truncated ? "true" : "false";
    out += "},\"traceEvents\":[";
    out += "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":";
    appendString(out, kernelName);
    out += "}}";
    for (int u = 0; u < t.units.size(); ++u) {
        out += ",{\"ph\":\"M\",\"pid\":1,\"tid\":" + QByteArray::number(u + 1) +
               ",\"name\":\"thread_name\",\"args\":{\"name\":";
        appendString(out, unitLabel(t.units.at(u)));
        out += "}},{\"ph\":\"M\",\"pid\":1,\"tid\":" + QByteArray::number(u + 1) +
               ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + QByteArray::number(u) + "}}";
    }
    QList<QByteArray> ops;
    for (const QString &op : t.ops) {
        QByteArray quoted;
        appendString(quoted, op);
        ops << quoted;
    }
    for (int i = 0; i < t.count(); ++i) {
        out += ",{\"ph\":\"X\",\"pid\":1,\"tid\":" + QByteArray::number(t.unit.at(i) + 1) + ",\"name\":";
        out += ops.value(t.op.at(i), QByteArrayLiteral("\"?\""));
        out += ",\"cat\":";
        appendString(out, t.units.value(t.unit.at(i)));
        out += ",\"ts\":";
        appendNumber(out, t.startNs.at(i) / 1000.0);
        out += ",\"dur\":";
        appendNumber(out, t.durNs.at(i) / 1000.0);
        out += ",\"args\":{\"line\":" + QByteArray::number(t.line.at(i)) +
               ",\"partitions\":" + QByteArray::number(t.partitions.at(i)) +
               ",\"free\":" + QByteArray::number(t.freeElems.at(i)) + ",\"bytes\":" + QByteArray::number(t.bytes.at(i)) +
               "}}";
    }
    out += "]}\n";
    return out;
}

bool ChromeTrace::write(const QString &path, const EvalProfile::Timeline &timeline, const QString &kernelName,
                        QString &error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        error = QStringLiteral("cannot write the trace %1: %2").arg(path, file.errorString());
        return false;
    }
    const QByteArray json = toJson(timeline, kernelName);
    if (file.write(json) != json.size() || !file.commit()) {
        error = QStringLiteral("cannot write the trace %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}
