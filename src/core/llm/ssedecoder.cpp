#include "llm/ssedecoder.h"

QList<QByteArray> SseDecoder::feed(const QByteArray &chunk)
{
    QList<QByteArray> out;
    m_buffer += chunk;
    qsizetype newline;
    while ((newline = m_buffer.indexOf('\n')) >= 0) {
        QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        if (line.endsWith('\r'))
            line.chop(1);
        takeLine(line, out);
    }
    return out;
}

QList<QByteArray> SseDecoder::finish()
{
    QList<QByteArray> out;
    if (!m_buffer.isEmpty())
        takeLine(std::exchange(m_buffer, {}), out);
    takeLine(QByteArray(), out);
    return out;
}

void SseDecoder::takeLine(QByteArray line, QList<QByteArray> &out)
{
    if (line.isEmpty()) {
        if (m_hasData)
            out.append(std::exchange(m_data, {}));
        m_hasData = false;
        return;
    }
    if (!line.startsWith("data:"))
        return;
    line.remove(0, 5);
    if (line.startsWith(' '))
        line.remove(0, 1);
    if (m_hasData)
        m_data += '\n';
    m_data += line;
    m_hasData = true;
}
