// A graph as Graphviz DOT text (cudaGraphDebugDotPrint): one cluster per
// graph, a box per node labelled with its kind and, as the flags ask, its
// parameters; child graphs and conditional bodies are clusters of their own,
// reached from their node by a dotted edge. The text is for people (and
// `dot -Tsvg`), so it follows CUDA's output in spirit, not byte for byte.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <variant>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"

namespace weft::detail {

/// cudaGraphDebugDotFlags' bits (and the driver's, which add memory, batch
/// and topology bits), which this layer cannot name by CUDA's enum.
enum dot_detail : unsigned {
  dot_verbose = 1u << 0,
  dot_kernel_params = 1u << 2,
  dot_memcpy_params = 1u << 3,
  dot_memset_params = 1u << 4,
  dot_host_params = 1u << 5,
  dot_event_params = 1u << 6,
  dot_kernel_attributes = 1u << 9,
  dot_handles = 1u << 10,
  dot_alloc_params = 1u << 11,
  dot_free_params = 1u << 12,
  dot_edge_numbers = 1u << 14,
  dot_conditional_params = 1u << 15,
};

/// The kernel's name as the program spells it (weft::detail::kernel_name:
/// its symbol demangled, or its C++ type for a lambda), else its address.
inline std::string dot_kernel_name(const kernel_work& w) {
  if (w.arguments) return w.arguments->kernel_name();
  std::ostringstream text;
  text << "kernel " << w.func;
  return text.str();
}

class dot_writer {
 public:
  explicit dot_writer(unsigned flags) : flags_(flags & dot_verbose ? ~0u : flags) {}

  std::string write(const CUgraph_st& graph) {
    out_ << "digraph dot {\n  compound=true;\n  node [shape=box style=rounded fontname=\"monospace\"];\n";
    cluster(graph, "graph " + std::to_string(graph.serial), "  ");
    out_ << "}\n";
    return out_.str();
  }

 private:
  bool wants(dot_detail d) const { return (flags_ & d) != 0; }

  static std::string id(const CUgraph_st& g, std::size_t index) {
    return "\"graph_" + std::to_string(g.serial) + "_node_" + std::to_string(index) + "\"";
  }

  static std::string escaped(const std::string& text) {
    std::string result;
    for (char c : text) {
      if (c == '"' || c == '\\') result += '\\';
      result += c;
    }
    return result;
  }

  static std::string kind_name(cudaMemcpyKind kind) {
    switch (kind) {
      case cudaMemcpyHostToHost:
        return "HostToHost";
      case cudaMemcpyHostToDevice:
        return "HostToDevice";
      case cudaMemcpyDeviceToHost:
        return "DeviceToHost";
      case cudaMemcpyDeviceToDevice:
        return "DeviceToDevice";
      default:
        return "Default";
    }
  }

  static std::string dims(dim3 d) {
    return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
  }

  template <class... Parts>
  static std::string text(const Parts&... parts) {
    std::ostringstream s;
    (s << ... << parts);
    return s.str();
  }

  // Lines of a node's label: its kind first, then what the flags ask for.
  std::string label(const CUgraphNode_st& node, std::size_t index) {
    std::string lines;
    auto line = [&](const std::string& l) { lines += "\\n" + escaped(l); };
    std::string kind = std::visit(
        [&](const auto& w) -> std::string {
          using work = std::decay_t<decltype(w)>;
          if constexpr (std::is_same_v<work, kernel_work>) {
            line(dot_kernel_name(w));
            if (wants(dot_kernel_params)) {
              line(text("grid ", dims(w.grid), " block ", dims(w.block)));
              line(text("sharedMemBytes ", w.shared_bytes));
            }
            if (wants(dot_kernel_attributes)) {
              if (w.cluster.x * w.cluster.y * w.cluster.z > 1) line("cluster " + dims(w.cluster));
              if (w.attributes.cluster.x != 0) line("cluster " + dims(w.attributes.cluster));
              if (w.attributes.cooperative) line("cooperative");
              if (w.attributes.priority != command::stream_priority) line(text("priority ", w.attributes.priority));
            }
            if (wants(dot_handles)) line(text("func ", w.func));
            return "KERNEL";
          } else if constexpr (std::is_same_v<work, copy_work>) {
            if (wants(dot_memcpy_params)) {
              line(text("src ", w.src.ptr, " pitch ", w.src.pitch, " pos (", w.src.x, ",", w.src.y, ",", w.src.z, ")"));
              line(text("dst ", w.dst.ptr, " pitch ", w.dst.pitch, " pos (", w.dst.x, ",", w.dst.y, ",", w.dst.z, ")"));
              line(text("extent (", w.width, ",", w.height, ",", w.depth, ")"));
              line("kind " + kind_name(w.kind));
            }
            return "MEMCPY";
          } else if constexpr (std::is_same_v<work, set_work>) {
            if (wants(dot_memset_params)) {
              line(text("dst ", w.dst, " value ", w.value, " elementSize ", w.element_size));
              line(text("width ", w.width, " height ", w.height, " pitch ", w.pitch));
            }
            return "MEMSET";
          } else if constexpr (std::is_same_v<work, host_work>) {
            if (wants(dot_host_params)) line(text("fn ", reinterpret_cast<const void*>(w.fn), " userData ", w.data));
            return "HOST";
          } else if constexpr (std::is_same_v<work, child_work>) {
            return "GRAPH";
          } else if constexpr (std::is_same_v<work, empty_work>) {
            return "EMPTY";
          } else if constexpr (std::is_same_v<work, event_record_work>) {
            if (wants(dot_event_params)) line(text("event ", static_cast<const void*>(w.event)));
            return "EVENT_RECORD";
          } else if constexpr (std::is_same_v<work, event_wait_work>) {
            if (wants(dot_event_params)) line(text("event ", static_cast<const void*>(w.event)));
            return "WAIT_EVENT";
          } else if constexpr (std::is_same_v<work, alloc_work>) {
            if (wants(dot_alloc_params)) {
              line(text("bytesize ", w.bytes, " device ", w.device));
              if (w.allocation) line(text("dptr ", w.allocation->address));
            }
            return "MEM_ALLOC";
          } else if constexpr (std::is_same_v<work, free_work>) {
            if (wants(dot_free_params)) line(text("dptr ", w.address));
            return "MEM_FREE";
          } else {
            static_assert(std::is_same_v<work, conditional_work>);
            if (wants(dot_conditional_params)) {
              const char* type = w.kind == conditional_kind::if_else      ? "IF"
                                 : w.kind == conditional_kind::while_loop ? "WHILE"
                                                                          : "SWITCH";
              line(text("type ", type, " size ", w.bodies.size()));
              if (w.handle) {
                line(text("handle ", conditional_handles::number(*w.handle), " default ", w.handle->default_value,
                          w.handle->assign_default ? " (assigned at launch)" : ""));
              }
            }
            return "CONDITIONAL";
          }
        },
        node.work);
    std::string head = std::to_string(index) + "\\n" + kind;
    if (wants(dot_handles)) head += escaped(text("\\nnode ", static_cast<const void*>(&node)));
    return head + lines;
  }

  void cluster(const CUgraph_st& g, const std::string& title, const std::string& indent) {
    out_ << indent << "subgraph \"cluster_" << g.serial << "\" {\n";
    out_ << indent << "  label=\"" << escaped(title) << "\" style=dashed;\n";
    std::string inner = indent + "  ";
    // Graphviz drops an empty cluster, and an edge needs a node to end at.
    if (g.nodes.empty()) out_ << inner << anchor(g) << " [shape=point style=invis];\n";
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const CUgraphNode_st& n = *g.nodes[i];
      out_ << inner << id(g, i) << " [label=\"" << label(n, i) << "\"";
      if (std::holds_alternative<child_work>(n.work)) out_ << " shape=box3d style=solid";
      if (std::holds_alternative<conditional_work>(n.work)) out_ << " shape=diamond style=solid";
      out_ << "];\n";
    }
    std::size_t edge_number = 0;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const CUgraphNode_st& to = *g.nodes[i];
      for (const CUgraphNode_st* from : to.dependencies) {
        out_ << inner << id(g, index_of(g, from)) << " -> " << id(g, i);
        std::string attributes;
        // Programmatic ports are 1 (programmatic) and 2 (launch completion),
        // cudaGraphKernelNodePort*'s values.
        unsigned char port = g.port_of(from, &to);
        if (port)
          attributes += std::string("style=dashed color=blue label=\"") +
                        (port == 1 ? "programmatic" : "launch completion") + "\"";
        if (wants(dot_edge_numbers))
          attributes += std::string(port ? " xlabel" : "label") + "=\"edge " + std::to_string(edge_number) + "\"";
        ++edge_number;
        if (!attributes.empty()) out_ << " [" << attributes << "]";
        out_ << ";\n";
      }
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const CUgraphNode_st& n = *g.nodes[i];
      if (const auto* child = std::get_if<child_work>(&n.work)) {
        nested(g, i, *child->graph, "child graph of node " + std::to_string(i), "", inner);
      } else if (const auto* c = std::get_if<conditional_work>(&n.work)) {
        for (std::size_t b = 0; b < c->bodies.size(); ++b) {
          std::string body = "body " + std::to_string(b);
          if (c->kind == conditional_kind::if_else) body += b == 0 ? " (if)" : " (else)";
          if (c->kind == conditional_kind::switch_of) body += " (case " + std::to_string(b) + ")";
          nested(g, i, *c->bodies[b], body + " of node " + std::to_string(i), body, inner);
        }
      }
    }
    out_ << indent << "}\n";
  }

  // A nested graph's cluster, and a dotted edge from its node into it (to
  // its anchor when it has no nodes).
  void nested(const CUgraph_st& g, std::size_t node, const CUgraph_st& inner_graph, const std::string& title,
              const std::string& edge_label, const std::string& indent) {
    cluster(inner_graph, title, indent);
    std::string target = inner_graph.nodes.empty() ? anchor(inner_graph) : id(inner_graph, 0);
    out_ << indent << id(g, node) << " -> " << target << " [style=dotted lhead=\"cluster_" << inner_graph.serial
         << "\"";
    if (!edge_label.empty()) out_ << " label=\"" << escaped(edge_label) << "\"";
    out_ << "];\n";
  }

  static std::string anchor(const CUgraph_st& g) { return "\"graph_" + std::to_string(g.serial) + "_empty\""; }

  static std::size_t index_of(const CUgraph_st& g, const CUgraphNode_st* n) {
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].get() == n) return i;
    return 0;
  }

  unsigned flags_;
  std::ostringstream out_;
};

/// The DOT text of `graph` with the details `flags` (cudaGraphDebugDotFlags)
/// ask for.
inline std::string graph_dot(const CUgraph_st& graph, unsigned flags) { return dot_writer(flags).write(graph); }

}  // namespace weft::detail
