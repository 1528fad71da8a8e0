// ornic_bitmap: RTL of ORNIC's whole bitmap (docs/DESIGN.md M1, ORNIC Figure 7):
// per QP a cyclic array of N block nodes {block_id, valid, all_1}, the QP state
// registers (header_ptr, base_psn, ePSN, OTD, blocks held, last NAK), one shared
// pool of M-bit blocks and its free-list stack. Verilated, it replaces the C++
// core inside oonic's Bitmap Manager with `bitmap.impl: rtl`
// (model/ordering/rtl_bitmap.h; testbench/rtl/README.md). It is written from
// the core's contract in model/ordering/ornic_bitmap.h: the same verdicts, ePSN,
// NAK block, blocks held, access counts and, clock by clock, the same cycles.
//
// Geometry is set at run time (cfg_m, cfg_n, cfg_pool, cfg_qps, held during and
// after reset) up to the compile-time maxima below; the cap_* outputs report them.
// Reset (synchronous, one edge) clears every QP and fills the free stack with
// cfg_pool-1 .. 0, block 0 on top, as the core does.
//
// One request at a time. Present op/qp/psn/otd with in_valid = 1:
//  * a receive decided from QP state alone (QP closed, PSN below ePSN, PSN beyond
//    the window without a NAK) costs 0 cycles: `done` is high at once,
//    combinationally, and the request must be withdrawn without a clock edge;
//  * otherwise the rising edge takes it (in_valid may fall after that edge) and
//    each edge does one step of the cost model; `done` rises after the edge of
//    the last step, so the edges counted are the request's cycles.
// Steps (one cycle each, as the core counts; comments name the core's wording):
//   LOCATE   node array read; all_1: duplicate. Not valid: the free stack's empty
//            flag decides pool exhausted (done) or ALLOC next. Valid: RMW next
//   ALLOC    pop a block id, zero the block, node write
//   SETNEW   set the bit (read-modify-write of the fresh block)
//   RMW      read the held block; bit set: duplicate; else set it
//   FREE     the block became all ones: push it, node write (all_1, or cleared
//            for the header node that ePSN leaves in this call)
//   SCAN     head advance: header_ptr + 1, read that node (an all_1 node is
//            cleared and the scan goes on)
//   SCANBLK  a partial node: read its block, ePSN = its first zero
//   NAKNODE  OTD loss: read the header node for the NAK block
//   NAKBLK   ... and its block, if it holds one
// open, close and set_otd take one edge (the model does not time them).
// Style: one step per edge; memories are written with blocking assignments (Verilator
// 5.006 takes no non-blocking writes to arrays in loops, and no step reads a memory after
// writing it in the same edge), registers with non-blocking ones.
`timescale 1ps / 1ps
module ornic_bitmap #(
    parameter integer MAX_M = 512,         // bits per block, at most
    parameter integer MAX_QPS = 4096,      // QP slots, at most
    parameter integer MAX_NODES = 262144,  // QP slots x nodes per QP, at most
    parameter integer MAX_POOL = 65536     // pool blocks, at most
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [15:0]      cfg_m,
    input  wire [15:0]      cfg_n,
    input  wire [31:0]      cfg_pool,
    input  wire [31:0]      cfg_qps,
    input  wire [31:0]      cfg_renak,   // re-declare a persisting hole past this many PSNs (0: never)
    input  wire             in_valid,
    input  wire [2:0]       in_op,       // 1 open, 2 close, 3 set_otd, 4 receive
    input  wire [31:0]      in_qp,
    input  wire [23:0]      in_psn,      // receive: the PSN; open: the start PSN
    input  wire [31:0]      in_otd,      // open, set_otd
    output wire             done,
    output wire [2:0]       verdict,     // ordering::Verdict
    output wire             located,     // the node array was read (locate_cycles 1)
    output wire             head_advanced,
    output wire             nak,
    output wire [23:0]      nak_base,
    output wire [MAX_M-1:0] nak_bits,
    output wire [31:0]      node_acc,
    output wire [31:0]      block_acc,
    output wire             freed,       // a full block was freed (FREE ran)
    // QP state and node view, read combinationally (registers / array read ports)
    input  wire [31:0]      q_qp,
    input  wire [15:0]      q_node,      // node index counted from header_ptr
    output wire             q_open,
    output wire [23:0]      q_epsn,
    output wire [31:0]      q_blocks_held,
    output wire [15:0]      q_header_ptr,
    output wire [23:0]      q_base_psn,
    output wire             qn_valid,
    output wire             qn_all_1,
    output wire [15:0]      qn_block_id,
    output wire [31:0]      pool_free,
    output wire [31:0]      cap_m,
    output wire [31:0]      cap_qps,
    output wire [31:0]      cap_nodes,
    output wire [31:0]      cap_pool
);
  localparam integer MAX_N = 4096;  // nodes per QP, at most (bitmap.nodes_per_qp's range)
  localparam [2:0] V_INORDER = 3'd0, V_OOO = 3'd1, V_DUP = 3'd2, V_BEYOND = 3'd3,
                   V_EXHAUSTED = 3'd4, V_CLOSED = 3'd5;
  localparam [2:0] OP_OPEN = 3'd1, OP_CLOSE = 3'd2, OP_SETOTD = 3'd3, OP_RECV = 3'd4;
  localparam [3:0] S_IDLE = 4'd0, S_ALLOC = 4'd1, S_SETNEW = 4'd2, S_RMW = 4'd3,
                   S_FREE = 4'd4, S_SCAN = 4'd5, S_SCANBLK = 4'd6, S_NAKNODE = 4'd7,
                   S_NAKBLK = 4'd8;

  assign cap_m = MAX_M;
  assign cap_qps = MAX_QPS;
  assign cap_nodes = MAX_NODES;
  assign cap_pool = MAX_POOL;

  // ---- storage -----------------------------------------------------------------
  reg             n_valid [0:MAX_NODES-1];  // node array: qp * N + physical index
  reg             n_all_1 [0:MAX_NODES-1];
  reg [15:0]      n_block [0:MAX_NODES-1];
  reg [MAX_M-1:0] pool [0:MAX_POOL-1];      // block contents
  reg [15:0]      free_stack [0:MAX_POOL-1];
  reg [31:0]      sp;                       // free blocks; top is free_stack[sp - 1]
  reg             qp_open [0:MAX_QPS-1];
  reg [15:0]      qp_hp [0:MAX_QPS-1];
  reg [23:0]      qp_base [0:MAX_QPS-1];
  reg [23:0]      qp_epsn [0:MAX_QPS-1];
  reg [31:0]      qp_otd [0:MAX_QPS-1];
  reg [31:0]      qp_held [0:MAX_QPS-1];
  reg [23:0]      qp_last_nak [0:MAX_QPS-1];
  reg [23:0]      qp_nak_psn [0:MAX_QPS-1];  // the packet that triggered that NAK
  reg             qp_nak_sent [0:MAX_QPS-1];

  // ---- the request, decided from QP state (combinational) ------------------------
  wire [31:0] rq = in_qp < cfg_qps ? in_qp : 32'd0;
  wire        r_open = in_qp < cfg_qps && qp_open[rq];
  wire [23:0] r_d = in_psn - qp_epsn[rq];      // psn - ePSN, mod 2^24
  wire        r_below = r_d[23];                // negative distance: below ePSN
  wire [23:0] r_off = in_psn - qp_base[rq];
  wire [31:0] r_k = {8'd0, r_off} / {16'd0, cfg_m};
  wire [31:0] r_bit = {8'd0, r_off} % {16'd0, cfg_m};
  wire        r_beyond = r_k >= {16'd0, cfg_n};
  wire        r_same = qp_nak_sent[rq] && qp_last_nak[rq] == qp_epsn[rq];
  wire [23:0] r_rd = in_psn - qp_nak_psn[rq];  // past the last NAK's trigger, mod 2^24
  wire        r_redecl = r_same && cfg_renak != 32'd0 && !r_rd[23] && {8'd0, r_rd} > cfg_renak;
  wire        r_nak = !r_below && {8'd0, r_d} > qp_otd[rq] && (!r_same || r_redecl);
  wire        r_zero = in_op == OP_RECV && (!r_open || r_below || (r_beyond && !r_nak));
  wire [2:0]  r_verdict = !r_open ? V_CLOSED : r_below ? V_DUP : V_BEYOND;

  // ---- the request in flight (registered) ---------------------------------------
  reg [3:0]       state;
  reg             done_r, located_r, head_r, nak_r, freed_r;
  reg [2:0]       verdict_r;
  reg [23:0]      nak_base_r;
  reg [MAX_M-1:0] nak_bits_r;
  reg [31:0]      nacc_r, bacc_r;
  reg [31:0]      w_qp, w_bit, w_addr;
  reg [23:0]      w_d;
  reg             w_nak;
  reg [15:0]      w_block;

  wire presenting = state == S_IDLE && in_valid;
  assign done = presenting ? r_zero : done_r;
  assign verdict = presenting ? r_verdict : verdict_r;
  assign located = presenting ? 1'b0 : located_r;
  assign head_advanced = presenting ? 1'b0 : head_r;
  assign nak = presenting ? 1'b0 : nak_r;
  assign nak_base = nak_base_r;
  assign nak_bits = nak_bits_r;
  assign node_acc = presenting ? 32'd0 : nacc_r;
  assign block_acc = presenting ? 32'd0 : bacc_r;
  assign freed = presenting ? 1'b0 : freed_r;

  // ---- queries -------------------------------------------------------------------
  wire [31:0] qq = q_qp < cfg_qps ? q_qp : 32'd0;
  wire        q_ok = q_qp < cfg_qps;
  assign q_open = q_ok && qp_open[qq];
  assign q_epsn = q_ok ? qp_epsn[qq] : 24'd0;
  assign q_blocks_held = q_ok ? qp_held[qq] : 32'd0;
  assign q_header_ptr = q_ok ? qp_hp[qq] : 16'd0;
  assign q_base_psn = q_ok ? qp_base[qq] : 24'd0;
  wire [31:0] qn_phys = ({16'd0, qp_hp[qq]} + {16'd0, q_node}) % {16'd0, cfg_n};
  wire [31:0] qn_addr = qq * {16'd0, cfg_n} + qn_phys;
  assign qn_valid = q_ok && q_node < cfg_n && n_valid[qn_addr];
  assign qn_all_1 = q_ok && q_node < cfg_n && n_all_1[qn_addr];
  assign qn_block_id = (q_ok && q_node < cfg_n && n_valid[qn_addr] && !n_all_1[qn_addr]) ?
                       n_block[qn_addr] : 16'hFFFF;
  assign pool_free = sp;

  // ---- helpers -------------------------------------------------------------------
  function [MAX_M-1:0] mask_m(input [15:0] m);
    integer i;
    begin
      mask_m = {MAX_M{1'b0}};
      for (i = 0; i < MAX_M; i = i + 1) if (i < m) mask_m[i] = 1'b1;
    end
  endfunction
  // First clear bit of a block in [0, M), M if it is all ones.
  function [31:0] first_zero(input [MAX_M-1:0] b, input [15:0] m);
    integer i;
    reg found;
    begin
      first_zero = {16'd0, m};
      found = 1'b0;
      for (i = 0; i < MAX_M; i = i + 1)
        if (!found && i < m && !b[i]) begin
          first_zero = i;
          found = 1'b1;
        end
    end
  endfunction

  // Whether this receive declares a loss (decided at the request: ePSN does not move
  // in a receive with psn > ePSN, the only kind that can).
  task finish_or_nak;
    begin
      if (w_nak) state <= S_NAKNODE;
      else begin
        state <= S_IDLE;
        done_r <= 1'b1;
      end
    end
  endtask

  integer i;
  reg [31:0] t_hp, t_addr, t_fz, t_qbase;  // step temporaries (blocking)
  reg [MAX_M-1:0] t_blk;
  reg [23:0] t_base;

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < MAX_NODES; i = i + 1) begin
        n_valid[i] = 1'b0;
        n_all_1[i] = 1'b0;
        n_block[i] = 16'd0;
      end
      for (i = 0; i < MAX_QPS; i = i + 1) begin
        qp_open[i] = 1'b0;
        qp_hp[i] = 16'd0;
        qp_base[i] = 24'd0;
        qp_epsn[i] = 24'd0;
        qp_otd[i] = 32'd0;
        qp_held[i] = 32'd0;
        qp_last_nak[i] = 24'd0;
        qp_nak_psn[i] = 24'd0;
        qp_nak_sent[i] = 1'b0;
      end
      for (i = 0; i < MAX_POOL; i = i + 1)
        free_stack[i] = (i < cfg_pool) ? cfg_pool[15:0] - 16'd1 - i[15:0] : 16'd0;
      sp <= cfg_pool;
      state <= S_IDLE;
      done_r <= 1'b0;
      located_r <= 1'b0;
      head_r <= 1'b0;
      nak_r <= 1'b0;
      freed_r <= 1'b0;
      verdict_r <= V_CLOSED;
      nak_base_r <= 24'd0;
      nak_bits_r <= {MAX_M{1'b0}};
      nacc_r <= 32'd0;
      bacc_r <= 32'd0;
    end else begin
      case (state)
        S_IDLE: begin
          done_r <= 1'b0;
          if (in_valid && in_op == OP_OPEN && in_qp < cfg_qps) begin
            // Reopening first closes (close's order: from the last node back).
            t_qbase = in_qp * {16'd0, cfg_n};
            if (qp_open[in_qp]) close_qp(in_qp);
            for (i = 0; i < MAX_N; i = i + 1)
              if (i < cfg_n) begin
                n_valid[t_qbase + i] = 1'b0;
                n_all_1[t_qbase + i] = 1'b0;
              end
            qp_open[in_qp] = 1'b1;
            qp_hp[in_qp] = 16'd0;
            qp_base[in_qp] = in_psn;
            qp_epsn[in_qp] = in_psn;
            qp_otd[in_qp] = in_otd;
            qp_held[in_qp] = 32'd0;
            qp_last_nak[in_qp] = 24'd0;
            qp_nak_psn[in_qp] = 24'd0;
            qp_nak_sent[in_qp] = 1'b0;
            done_r <= 1'b1;
          end else if (in_valid && in_op == OP_CLOSE) begin
            if (in_qp < cfg_qps && qp_open[in_qp]) begin
              close_qp(in_qp);
              qp_open[in_qp] = 1'b0;
              qp_held[in_qp] = 32'd0;
              qp_nak_sent[in_qp] = 1'b0;
            end
            done_r <= 1'b1;
          end else if (in_valid && in_op == OP_SETOTD) begin
            if (in_qp < cfg_qps) qp_otd[in_qp] = in_otd;
            done_r <= 1'b1;
          end else if (in_valid && in_op == OP_RECV && !r_zero) begin
            w_qp <= rq;
            w_d <= r_d;
            w_bit <= r_bit;
            w_nak <= r_nak;
            head_r <= 1'b0;
            nak_r <= 1'b0;
            freed_r <= 1'b0;
            nak_bits_r <= {MAX_M{1'b0}};
            if (r_beyond) begin
              // Beyond the window, with a NAK: this edge is NAKNODE's.
              verdict_r <= V_BEYOND;
              located_r <= 1'b0;
              nacc_r <= 32'd0;
              bacc_r <= 32'd0;
              nak_node(rq, qp_epsn[rq], in_psn, 32'd0);
            end else begin
              // LOCATE
              t_hp = {16'd0, qp_hp[rq]} + r_k;
              if (t_hp >= {16'd0, cfg_n}) t_hp = t_hp - {16'd0, cfg_n};
              t_addr = rq * {16'd0, cfg_n} + t_hp;
              w_addr <= t_addr;
              located_r <= 1'b1;
              nacc_r <= 32'd1;
              bacc_r <= 32'd0;
              if (n_all_1[t_addr]) begin
                verdict_r <= V_DUP;
                if (r_nak) state <= S_NAKNODE;
                else done_r <= 1'b1;
              end else if (!n_valid[t_addr]) begin
                if (sp == 32'd0) begin
                  verdict_r <= V_EXHAUSTED;
                  if (r_nak) state <= S_NAKNODE;
                  else done_r <= 1'b1;
                end else state <= S_ALLOC;
              end else begin
                w_block <= n_block[t_addr];
                state <= S_RMW;
              end
            end
          end
        end
        S_ALLOC: begin
          w_block <= free_stack[sp - 1];
          pool[free_stack[sp - 1]] = {MAX_M{1'b0}};
          sp <= sp - 32'd1;
          n_block[w_addr] = free_stack[sp - 1];
          n_valid[w_addr] = 1'b1;
          n_all_1[w_addr] = 1'b0;
          qp_held[w_qp] = qp_held[w_qp] + 32'd1;
          nacc_r <= nacc_r + 32'd1;
          bacc_r <= bacc_r + 32'd1;
          state <= S_SETNEW;
        end
        S_SETNEW: begin
          t_blk = {MAX_M{1'b0}};
          t_blk[w_bit] = 1'b1;
          pool[w_block] = t_blk;
          bacc_r <= bacc_r + 32'd2;
          tracked(t_blk);
        end
        S_RMW: begin
          t_blk = pool[w_block];
          bacc_r <= bacc_r + 32'd1;
          if (t_blk[w_bit]) begin
            verdict_r <= V_DUP;
            finish_or_nak;
          end else begin
            t_blk[w_bit] = 1'b1;
            pool[w_block] = t_blk;
            bacc_r <= bacc_r + 32'd2;
            tracked(t_blk);
          end
        end
        S_FREE: begin
          free_stack[sp] = w_block;
          sp <= sp + 32'd1;
          qp_held[w_qp] = qp_held[w_qp] - 32'd1;
          nacc_r <= nacc_r + 32'd1;
          bacc_r <= bacc_r + 32'd1;
          freed_r <= 1'b1;
          if (w_d == 24'd0) begin
            n_valid[w_addr] = 1'b0;  // the header node ePSN leaves now: cleared
            n_all_1[w_addr] = 1'b0;
            state <= S_SCAN;
          end else begin
            n_all_1[w_addr] = 1'b1;
            finish_or_nak;
          end
        end
        S_SCAN: begin
          t_hp = {16'd0, qp_hp[w_qp]} + 32'd1;
          if (t_hp >= {16'd0, cfg_n}) t_hp = 32'd0;
          t_base = qp_base[w_qp] + {8'd0, cfg_m};
          t_addr = w_qp * {16'd0, cfg_n} + t_hp;
          qp_hp[w_qp] = t_hp[15:0];
          qp_base[w_qp] = t_base;
          nacc_r <= nacc_r + 32'd1;
          if (n_all_1[t_addr]) begin
            n_valid[t_addr] = 1'b0;
            n_all_1[t_addr] = 1'b0;
            nacc_r <= nacc_r + 32'd2;
          end else if (n_valid[t_addr]) begin
            w_block <= n_block[t_addr];
            state <= S_SCANBLK;
          end else begin
            qp_epsn[w_qp] = t_base;
            state <= S_IDLE;
            done_r <= 1'b1;
          end
        end
        S_SCANBLK: begin
          bacc_r <= bacc_r + 32'd1;
          t_fz = first_zero(pool[w_block], cfg_m);
          qp_epsn[w_qp] = qp_base[w_qp] + t_fz[23:0];
          state <= S_IDLE;
          done_r <= 1'b1;
        end
        S_NAKNODE: begin
          nak_node(w_qp, qp_epsn[w_qp], qp_epsn[w_qp] + w_d, nacc_r);
        end
        S_NAKBLK: begin
          nak_bits_r <= pool[n_block[w_qp * {16'd0, cfg_n} + {16'd0, qp_hp[w_qp]}]] & mask_m(cfg_m);
          bacc_r <= bacc_r + 32'd1;
          state <= S_IDLE;
          done_r <= 1'b1;
        end
        default: state <= S_IDLE;
      endcase
    end
  end

  // After the bit is set: free a full block, move ePSN for an in-order packet.
  task tracked(input [MAX_M-1:0] blk);
    begin
      verdict_r <= w_d == 24'd0 ? V_INORDER : V_OOO;
      t_fz = first_zero(blk, cfg_m);
      if (w_d == 24'd0) head_r <= 1'b1;
      if (t_fz == {16'd0, cfg_m}) state <= S_FREE;
      else if (w_d == 24'd0) begin
        qp_epsn[w_qp] = qp_base[w_qp] + t_fz[23:0];
        state <= S_IDLE;
        done_r <= 1'b1;
      end else finish_or_nak;
    end
  endtask

  // One NAKNODE step: the header node read; NAKBLK next if it holds a block.
  // psn: the packet that triggers it (ePSN + d: a NAK never moves ePSN).
  task nak_node(input [31:0] qp, input [23:0] epsn, input [23:0] psn, input [31:0] nacc);
    begin
      t_addr = qp * {16'd0, cfg_n} + {16'd0, qp_hp[qp]};
      qp_nak_sent[qp] = 1'b1;
      qp_last_nak[qp] = epsn;
      qp_nak_psn[qp] = psn;
      nak_r <= 1'b1;
      nak_base_r <= qp_base[qp];
      nacc_r <= nacc + 32'd1;
      if (n_valid[t_addr] && !n_all_1[t_addr]) state <= S_NAKBLK;
      else begin
        state <= S_IDLE;
        done_r <= 1'b1;
      end
    end
  endtask

  // close: every held block back on the free stack, from the last node (header + N - 1)
  // back to the header node, so the header node's block ends on top; nodes cleared.
  task close_qp(input [31:0] qp);
    integer j;
    reg [31:0] s, a, p;
    begin
      s = sp;
      for (j = MAX_N - 1; j >= 0; j = j - 1)
        if (j < cfg_n) begin
          p = ({16'd0, qp_hp[qp]} + j) % {16'd0, cfg_n};
          a = qp * {16'd0, cfg_n} + p;
          if (n_valid[a] && !n_all_1[a]) begin
            free_stack[s] = n_block[a];
            s = s + 32'd1;
          end
          n_valid[a] = 1'b0;
          n_all_1[a] = 1'b0;
        end
      sp <= s;
    end
  endtask
endmodule
