#include "taskcheckreport.h"

#include "hostchoice.h"

#include "hosts/host.h"
#include "model/taskcheckstamp.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

#include <memory>

namespace {

QString shapeOf(const QJsonValue &v)
{
    QStringList dims;
    for (const QJsonValue &d : v.toArray())
        dims << QString::number(d.toInteger());
    return dims.join(u'x');
}

QString count(const QJsonValue &v)
{
    return v.isDouble() ? QString::number(v.toDouble(), 'g', 6) : QStringLiteral("unknown");
}

} // namespace

TaskCheck::Result TaskCheckReport::run(const QString &folder, const QString &kernel, const QString &function)
{
    TaskCheck::Result result;
    HostConfig config;
    std::unique_ptr<Host> host(HostChoice::create(QStringLiteral("local"), 1, config, result.error));
    if (!host)
        return result;
    TaskCheck check(host.get());
    QEventLoop loop;
    QObject::connect(&check, &TaskCheck::finished, [&](const TaskCheck::Result &r) {
        result = r;
        loop.quit();
    });
    check.start({{QStringLiteral("dir"), folder}}, kernel, function);
    loop.exec();
    // Only the task's own baseline passing stamps the folder: a check of another kernel says nothing of it.
    if (result.ok && kernel.isEmpty() && !TaskCheckStamp::write(folder, result.error))
        result.ok = false;
    return result;
}

void TaskCheckReport::print(QTextStream &out, const TaskCheck::Result &result)
{
    for (const TaskCheck::Item &item : result.checks)
        out << (item.ok ? "  ok      " : "  FAILED  ") << item.check
            << (item.detail.isEmpty() ? QString() : QStringLiteral(": ") + item.detail) << "\n";
    const QJsonObject &raw = result.raw;
    if (!result.ok)
        return;
    QStringList inputs;
    for (const QJsonValue &v : raw.value(QStringLiteral("inputs")).toArray()) {
        const QJsonObject in = v.toObject();
        inputs << QStringLiteral("%1 %2 %3")
                      .arg(in.value(QStringLiteral("name")).toString(),
                           shapeOf(in.value(QStringLiteral("shape"))),
                           in.value(QStringLiteral("dtype")).toString());
    }
    out << "kernel function: " << raw.value(QStringLiteral("function")).toString() << " ("
        << raw.value(QStringLiteral("reference_kind")).toString() << " reference)\n"
        << "inputs: " << inputs.join(QStringLiteral(", ")) << "\n";
    const QJsonObject roof = raw.value(QStringLiteral("roofline")).toObject();
    const QJsonObject source = raw.value(QStringLiteral("roofline_source")).toObject();
    out << "roofline at the full size: " << count(roof.value(QStringLiteral("min_bytes"))) << " bytes ("
        << source.value(QStringLiteral("min_bytes")).toString(QStringLiteral("?")) << "), "
        << count(roof.value(QStringLiteral("matmul_flops"))) << " matmul and "
        << count(roof.value(QStringLiteral("vector_flops"))) << " vector FLOPs ("
        << source.value(QStringLiteral("flops")).toString(QStringLiteral("?")) << ")\n";
    const QJsonValue full = raw.value(QStringLiteral("latency_ms"));
    const QJsonValue small = raw.value(QStringLiteral("small_latency_ms"));
    if (full.isDouble() || small.isDouble())
        out << "kernel latency on nkisim: " << count(full) << " ms at the full size, " << count(small)
            << " ms at the small size\n";
}
