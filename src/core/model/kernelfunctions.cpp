#include "model/kernelfunctions.h"

#include <QRegularExpression>

namespace {

// The text between the '(' at `open` and its matching ')', or empty when unbalanced.
QString parenthesised(const QString &text, qsizetype open)
{
    int depth = 0;
    for (qsizetype i = open; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if ((c == u')' || c == u']' || c == u'}') && --depth == 0)
            return text.mid(open + 1, i - open - 1);
    }
    return {};
}

// Positional parameter names of a parameter list: annotations and defaults dropped, keyword-only ones
// (after a bare `*` or *args) and **kwargs left out.
QStringList positional(const QString &list)
{
    QStringList names;
    int depth = 0;
    QString part;
    const auto flush = [&names, &part]() -> bool {
        const QString p = part.trimmed();
        part.clear();
        if (p.isEmpty() || p == QStringLiteral("/"))
            return true;
        if (p.startsWith(u'*'))
            return false;
        static const QRegularExpression name(QStringLiteral("^([A-Za-z_]\\w*)"));
        if (const auto m = name.match(p); m.hasMatch())
            names << m.captured(1);
        return true;
    };
    for (const QChar c : list) {
        if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if (c == u')' || c == u']' || c == u'}')
            --depth;
        if (c == u',' && depth == 0) {
            if (!flush())
                return names;
            continue;
        }
        part += c;
    }
    flush();
    return names;
}

QStringList callsIn(const QString &body)
{
    static const QRegularExpression call(QStringLiteral("(?<![\\w.])([A-Za-z_]\\w*)\\s*\\("));
    QStringList names;
    auto it = call.globalMatch(body);
    while (it.hasNext())
        names << it.next().captured(1);
    names.removeDuplicates();
    return names;
}

bool isJitDecorator(const QString &decorator)
{
    static const QRegularExpression jit(QStringLiteral("^@\\s*(?:[\\w.]+\\.)?(jit|baremetal)\\b"));
    return jit.match(decorator).hasMatch();
}

QString names(const QList<KernelFunctions::Function> &fs)
{
    QStringList out;
    for (const auto &f : fs)
        out << f.name;
    return out.join(QStringLiteral(", "));
}

} // namespace

QList<KernelFunctions::Function> KernelFunctions::all(const QString &source)
{
    QList<Function> found;
    const QStringList lines = source.split(u'\n');
    static const QRegularExpression def(QStringLiteral("^(?:async\\s+)?def\\s+([A-Za-z_]\\w*)\\s*\\("));
    bool jitAbove = false;
    qsizetype offset = 0, bodyStart = 0, bodyEnd = 0;
    for (qsizetype i = 0; i < lines.size(); offset += lines.at(i).size() + 1, ++i) {
        const QString &line = lines.at(i);
        if (line.startsWith(u'@')) {
            jitAbove = jitAbove || isJitDecorator(line);
            continue;
        }
        const QRegularExpressionMatch m = def.match(line);
        // The first top-level statement after a def ends that function's body.
        if (!found.isEmpty() && bodyEnd == source.size() && !line.isEmpty() && !line.at(0).isSpace() &&
            !line.startsWith(u'#'))
            bodyEnd = offset;
        if (m.hasMatch()) {
            if (!found.isEmpty())
                found.last().calls = callsIn(source.mid(bodyStart, bodyEnd - bodyStart));
            bodyStart = offset;
            bodyEnd = source.size();
            Function f;
            f.name = m.captured(1);
            f.line = int(i) + 1;
            f.jit = jitAbove;
            f.parameters = positional(parenthesised(source, offset + m.capturedEnd(0) - 1));
            found.append(f);
        }
        if (!line.trimmed().isEmpty() && !line.startsWith(u'#'))
            jitAbove = false;
    }
    if (!found.isEmpty())
        found.last().calls = callsIn(source.mid(bodyStart, bodyEnd - bodyStart));
    return found;
}

std::optional<KernelFunctions::Function> KernelFunctions::pick(const QString &source, const QString &wanted,
                                                               QString &error)
{
    const QList<Function> fs = all(source);
    if (!wanted.isEmpty()) {
        for (const Function &f : fs)
            if (f.name == wanted)
                return f;
        error = QStringLiteral("the kernel file defines no function named '%1'%2")
                    .arg(wanted, fs.isEmpty() ? QString() : QStringLiteral(" (it has: %1)").arg(names(fs)));
        return std::nullopt;
    }
    QList<Function> jit;
    for (const Function &f : fs)
        if (f.jit)
            jit << f;
    if (jit.size() > 1) {
        // A jit function another function of the file calls is a traced helper, not the kernel.
        QList<Function> entry;
        for (const Function &f : jit) {
            bool called = false;
            for (const Function &g : fs)
                called = called || (g.name != f.name && g.calls.contains(f.name));
            if (!called)
                entry << f;
        }
        if (entry.size() == 1)
            return entry.first();
        for (const Function &f : jit)
            if (f.name == QStringLiteral("kernel"))
                return f;
    }
    if (jit.size() == 1)
        return jit.first();
    if (jit.size() > 1) {
        error = QStringLiteral("the kernel file has several @nki.jit functions (%1); name the kernel with "
                               "--function")
                    .arg(names(jit));
        return std::nullopt;
    }
    for (const QString &legacy : {QStringLiteral("kernel"), QStringLiteral("optimized_kernel")})
        for (const Function &f : fs)
            if (f.name == legacy)
                return f;
    if (fs.size() == 1)
        return fs.first();
    error = QStringLiteral("the kernel file defines no @nki.jit function (decorate the kernel function with "
                           "@nki.jit)");
    return std::nullopt;
}

QHash<QString, KernelFunctions::ShapeHint> KernelFunctions::shapeHints(const QString &source)
{
    QHash<QString, ShapeHint> hints;
    // "x: [256, 2048] float32", "x: (256, 2048)", "x[256, 2048] bfloat16", "x: 256x2048 float32"
    static const QRegularExpression stated(
        QStringLiteral("\\b([A-Za-z_]\\w*)\\s*(?::\\s*)?(?:[\\[(]\\s*(\\d+(?:\\s*,\\s*\\d+)*)\\s*,?\\s*[\\])]"
                       "|(\\d+(?:\\s*x\\s*\\d+)+))"
                       "(?:\\s+(float32|float16|bfloat16|int32|int8|uint8|int64|float64|bool))?"));
    static const QRegularExpression asserted(QStringLiteral(
        "assert\\s+([A-Za-z_]\\w*)\\.shape\\s*==\\s*[\\[(]\\s*(\\d+(?:\\s*,\\s*\\d+)*)\\s*,?\\s*[\\])]"));
    const auto dims = [](const QString &text) {
        QList<qint64> out;
        static const QRegularExpression sep(QStringLiteral("[,x]"));
        for (const QString &d : text.split(sep, Qt::SkipEmptyParts))
            out << d.trimmed().toLongLong();
        return out;
    };
    bool inDocstring = false;
    for (const QString &line : source.split(u'\n')) {
        const QString trimmed = line.trimmed();
        if (auto m = asserted.match(trimmed); m.hasMatch()) {
            hints[m.captured(1)].shape = dims(m.captured(2));
            continue;
        }
        // Only comments and docstrings state shapes: in code, `out[0, 1]` is an index, not a shape.
        const qsizetype quotes = line.count(QStringLiteral("\"\"\"")) + line.count(QStringLiteral("'''"));
        QString prose;
        if (inDocstring || quotes > 0)
            prose = trimmed;
        else if (const qsizetype hash = line.indexOf(u'#'); hash >= 0)
            prose = line.mid(hash + 1);
        if (quotes % 2 == 1)
            inDocstring = !inDocstring;
        auto it = stated.globalMatch(prose);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            ShapeHint hint;
            hint.shape = dims(m.captured(2).isEmpty() ? m.captured(3) : m.captured(2));
            hint.dtype = m.captured(4);
            if (!hint.shape.contains(0) && !hints.contains(m.captured(1)))
                hints.insert(m.captured(1), hint);
        }
    }
    return hints;
}
