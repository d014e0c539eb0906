#pragma once

#include <QByteArray>
#include <QList>

// Splits a text/event-stream body, fed in arbitrary chunks, into the payloads of its `data:` fields. Chat
// completions streams send one JSON chunk per event and end with the payload `[DONE]`.
class SseDecoder
{
public:
    // Returns the events completed by this chunk (an event ends at a blank line; multi-line data is joined
    // with '\n'). Comments (":") and other fields (event:, id:, retry:) are ignored.
    QList<QByteArray> feed(const QByteArray &chunk);
    // Whatever event was still open when the stream ended (servers that omit the final blank line).
    QList<QByteArray> finish();

private:
    void takeLine(QByteArray line, QList<QByteArray> &out);

    QByteArray m_buffer;
    QByteArray m_data;
    bool m_hasData = false;
};
